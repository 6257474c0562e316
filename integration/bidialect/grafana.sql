-- Statements in the shape Grafana's SQL data sources produce after macro
-- expansion ($__timeGroupAlias(col, 1d) → floor(extract(epoch from col)/86400)*86400
-- AS "time"; $__timeFilter(col) → col BETWEEN '<from>' AND '<to>' for the
-- PostgreSQL data source).

SELECT floor(extract(epoch from o_orderdate)/86400)*86400 AS "time", count(*) AS "orders"
FROM tpch.orders
WHERE o_orderdate BETWEEN '1995-01-01' AND '1995-03-01'
GROUP BY 1
ORDER BY 1;

SELECT o_orderdate AS "time", sum(o_totalprice) AS "revenue"
FROM tpch.orders
WHERE o_orderdate >= '1996-01-01' AND o_orderdate <= '1996-01-31'
GROUP BY o_orderdate
ORDER BY 1;
