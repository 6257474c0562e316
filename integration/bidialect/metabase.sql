-- Statements in the shape Metabase's SQL drivers generate from MBQL:
-- every identifier quoted and fully qualified ("schema"."table"."column"),
-- AS aliases, ORDER BY ... ASC, the 2000-row table view and the
-- 1048575-row limit of nested questions (metabase/metabase#63990 shows the
-- same shapes for SQL Server).

-- table view
SELECT "tpch"."orders"."o_orderkey" AS "o_orderkey", "tpch"."orders"."o_custkey" AS "o_custkey", "tpch"."orders"."o_orderstatus" AS "o_orderstatus"
FROM "tpch"."orders"
ORDER BY "tpch"."orders"."o_orderkey" ASC
LIMIT 2000;

-- count by a column
SELECT "tpch"."orders"."o_orderstatus" AS "o_orderstatus", COUNT(*) AS "count"
FROM "tpch"."orders"
GROUP BY "tpch"."orders"."o_orderstatus"
ORDER BY "tpch"."orders"."o_orderstatus" ASC;

-- count by month
SELECT CAST(DATE_TRUNC('month', "tpch"."orders"."o_orderdate") AS date) AS "o_orderdate", COUNT(*) AS "count"
FROM "tpch"."orders"
GROUP BY CAST(DATE_TRUNC('month', "tpch"."orders"."o_orderdate") AS date)
ORDER BY CAST(DATE_TRUNC('month', "tpch"."orders"."o_orderdate") AS date) ASC;

-- nested question over a filtered source
SELECT "source"."o_orderpriority" AS "o_orderpriority", SUM("source"."o_totalprice") AS "sum"
FROM (SELECT "tpch"."orders"."o_orderpriority" AS "o_orderpriority", "tpch"."orders"."o_totalprice" AS "o_totalprice"
      FROM "tpch"."orders" WHERE "tpch"."orders"."o_orderstatus" = 'F') AS "source"
GROUP BY "source"."o_orderpriority"
ORDER BY "source"."o_orderpriority" ASC
LIMIT 1048575;

-- implicit join through a foreign key
SELECT "Customer"."c_mktsegment" AS "Customer__c_mktsegment", AVG("tpch"."orders"."o_totalprice") AS "avg"
FROM "tpch"."orders"
LEFT JOIN "tpch"."customer" AS "Customer" ON "tpch"."orders"."o_custkey" = "Customer"."c_custkey"
GROUP BY "Customer"."c_mktsegment"
ORDER BY "Customer"."c_mktsegment" ASC;

-- sync: field values
SELECT "tpch"."nation"."n_name" AS "n_name" FROM "tpch"."nation" GROUP BY "tpch"."nation"."n_name" ORDER BY "tpch"."nation"."n_name" ASC LIMIT 1000;
