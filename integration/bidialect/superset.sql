-- Statements in the shape Apache Superset generates (SQLAlchemy compiler,
-- time grains from its engine specs: DATE_TRUNC('<grain>', col), filters
-- with CAST('<iso>' AS TIMESTAMP) as the DuckDB spec's convert_dttm
-- renders them; DataJunction/dj#117 lists the DATE_TRUNC grains Superset
-- needs). Each statement is run over Flight and in DuckDB on the same
-- files; "-- duckdb:" gives DuckDB's spelling when it differs.

-- time-series chart, month grain
SELECT DATE_TRUNC('month', o_orderdate) AS __timestamp, COUNT(*) AS count
FROM tpch.orders
GROUP BY DATE_TRUNC('month', o_orderdate)
ORDER BY count DESC
LIMIT 10000;

-- table chart: dimension, metric, time range filter
SELECT o_orderpriority AS o_orderpriority, SUM(o_totalprice) AS "SUM(o_totalprice)"
FROM tpch.orders
WHERE o_orderdate >= CAST('1995-01-01T00:00:00' AS TIMESTAMP) AND o_orderdate < CAST('1996-01-01T00:00:00' AS TIMESTAMP)
GROUP BY o_orderpriority
ORDER BY "SUM(o_totalprice)" DESC
LIMIT 1000;

-- big number with trendline, week grain
SELECT DATE_TRUNC('week', o_orderdate) AS __timestamp, COUNT(*) AS count
FROM tpch.orders
GROUP BY DATE_TRUNC('week', o_orderdate)
LIMIT 50000;

-- native filter: distinct values
SELECT DISTINCT o_orderstatus AS o_orderstatus FROM tpch.orders LIMIT 1000;

-- SQL Lab: the query wrapped with a row limit
SELECT * FROM (SELECT l_returnflag, l_linestatus, count(*) AS cnt FROM tpch.lineitem GROUP BY l_returnflag, l_linestatus) AS virtual_table LIMIT 1001;

-- virtual dataset with a metric and a HAVING
SELECT n_name AS n_name, COUNT(*) AS count
FROM (SELECT n.n_name, c.c_custkey FROM tpch.customer c JOIN tpch.nation n ON c.c_nationkey = n.n_nationkey) AS virtual_table
GROUP BY n_name
HAVING COUNT(*) > 10
ORDER BY count DESC
LIMIT 10000;
