-- Statements DBeaver sends when a table is opened and counted: quoted
-- schema-qualified names, LIMIT 200 pages, COUNT(*) of the table and
-- filters typed in the data editor.

SELECT * FROM "tpch"."region" LIMIT 200;

SELECT COUNT(*) FROM "tpch"."lineitem";

SELECT x.* FROM tpch.nation x WHERE x.n_regionkey = 1 LIMIT 200 OFFSET 0;

SELECT * FROM "tpch"."supplier" WHERE "s_acctbal" > 5000 ORDER BY "s_suppkey" LIMIT 200;
