-- Statements in the shape SQLAlchemy (and pandas.read_sql on top of it)
-- compiles: table_column labels, anon_1 subqueries, LIMIT/OFFSET, and
-- the has_table probe over information_schema.

SELECT orders.o_orderkey AS orders_o_orderkey, orders.o_totalprice AS orders_o_totalprice
FROM tpch.orders
WHERE orders.o_orderstatus = 'O'
ORDER BY orders.o_orderkey
LIMIT 10 OFFSET 5;

SELECT count(*) AS count_1 FROM (SELECT orders.o_orderkey AS orders_o_orderkey FROM tpch.orders) AS anon_1;

SELECT 1 FROM information_schema.tables WHERE table_schema = 'tpch' AND table_name = 'orders';

SELECT column_name FROM information_schema.columns WHERE table_schema = 'tpch' AND table_name = 'region' ORDER BY ordinal_position;

SELECT lineitem.l_shipmode AS lineitem_l_shipmode, count(lineitem.l_orderkey) AS count_1
FROM tpch.lineitem
WHERE lineitem.l_shipdate BETWEEN '1994-01-01' AND '1994-12-31'
GROUP BY lineitem.l_shipmode
ORDER BY count_1 DESC;
