-- Statements in the shape Tableau generates over ODBC/JDBC: table aliases
-- equal to the table name, "agg:column:ok" aliases, GROUP BY ordinals,
-- CASE over CAST(... AS TEXT) (cube-js/cube#10462), the connection probe
-- "SELECT ... FROM (SELECT 1 AS "SUBCOL") "SUBQUERY"" (cube-js/cube#10721)
-- and ODBC escapes ({fn ...}, {d '...'}), which DuckDB does not read.

-- connection probe
SELECT "SUBCOL" AS "COL" FROM (SELECT 1 AS "SUBCOL") "SUBQUERY" GROUP BY 1;

-- dimension and measure
SELECT "orders"."o_orderpriority" AS "o_orderpriority", SUM("orders"."o_totalprice") AS "sum:o_totalprice:ok"
FROM "tpch"."orders" "orders"
GROUP BY 1;

-- year of a date
SELECT CAST(EXTRACT(YEAR FROM "orders"."o_orderdate") AS BIGINT) AS "yr:o_orderdate:ok", COUNT(*) AS "cnt:orders:ok"
FROM "tpch"."orders" "orders"
GROUP BY 1;

-- group calculated with CASE
SELECT (CASE WHEN CAST("nation"."n_name" AS TEXT) IN ('FRANCE', 'GERMANY') THEN 'EU' ELSE CAST("nation"."n_name" AS TEXT) END) AS "Region"
FROM "tpch"."nation" "nation"
GROUP BY 1;

-- join and top 3
SELECT "customer"."c_mktsegment" AS "c_mktsegment", SUM("orders"."o_totalprice") AS "sum:o_totalprice:ok"
FROM "tpch"."orders" "orders" INNER JOIN "tpch"."customer" "customer" ON ("orders"."o_custkey" = "customer"."c_custkey")
GROUP BY 1
ORDER BY 2 DESC
LIMIT 3;

-- ODBC escapes
SELECT {fn YEAR("orders"."o_orderdate")} AS "yr", COUNT(*) AS "cnt"
FROM "tpch"."orders" "orders"
WHERE "orders"."o_orderdate" >= {d '1995-01-01'} AND {fn UCASE("orders"."o_orderstatus")} = 'F'
GROUP BY 1;
-- duckdb: SELECT YEAR("orders"."o_orderdate") AS "yr", COUNT(*) AS "cnt" FROM "tpch"."orders" "orders" WHERE "orders"."o_orderdate" >= DATE '1995-01-01' AND UPPER("orders"."o_orderstatus") = 'F' GROUP BY 1

-- timestamp escape and schema probe with WHERE 1 = 0
SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "tpch"."orders" "orders" WHERE "orders"."o_orderdate" < {ts '1992-01-02 00:00:00'} AND (1 = 0);
-- duckdb: SELECT "orders"."o_orderkey" AS "o_orderkey" FROM "tpch"."orders" "orders" WHERE "orders"."o_orderdate" < TIMESTAMP '1992-01-02 00:00:00' AND (1 = 0)
