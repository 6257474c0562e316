-- database: tpch
-- TPC-DS-style constructs over the TPC-H tables (SF 0.01).

SELECT n_regionkey, n_nationkey % 3 AS m, COUNT(*) AS c, SUM(n_nationkey) AS s, GROUPING(n_regionkey) AS g1, GROUPING(n_nationkey % 3) AS g2
FROM nation GROUP BY ROLLUP (n_regionkey, n_nationkey % 3);

SELECT n_regionkey, n_nationkey % 2 AS m, COUNT(*) AS c, GROUPING(n_regionkey, n_nationkey % 2) AS g
FROM nation GROUP BY CUBE (n_regionkey, n_nationkey % 2);

SELECT o_orderstatus, o_orderpriority, COUNT(*) AS c, SUM(o_totalprice) AS s
FROM orders GROUP BY GROUPING SETS ((o_orderstatus), (o_orderpriority), ());

SELECT CASE WHEN GROUPING(r_name) = 1 THEN 'ALL' ELSE r_name END AS region, SUM(n_nationkey) AS s
FROM nation JOIN region ON n_regionkey = r_regionkey GROUP BY ROLLUP (r_name);

-- ordered
SELECT o_orderstatus, o_orderpriority, COUNT(*) AS c FROM orders
GROUP BY ROLLUP (o_orderstatus, o_orderpriority) ORDER BY GROUPING(o_orderstatus), o_orderstatus, GROUPING(o_orderpriority), o_orderpriority;

SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS q FROM lineitem
GROUP BY l_returnflag, ROLLUP (l_linestatus);

SELECT n_regionkey, COUNT(*) AS c FROM nation GROUP BY ROLLUP (n_regionkey) HAVING COUNT(*) > 4;

-- window frames
SELECT o_orderkey, o_custkey, SUM(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s
FROM orders WHERE o_custkey < 50;

SELECT o_orderkey, o_custkey, AVG(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS a
FROM orders WHERE o_custkey < 50;

SELECT o_orderkey, o_custkey, COUNT(*) OVER (PARTITION BY o_custkey ORDER BY o_orderdate RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c
FROM orders WHERE o_custkey < 50;

SELECT o_orderkey, o_custkey, MAX(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS m
FROM orders WHERE o_custkey < 50;

SELECT o_orderkey, MIN(o_totalprice) OVER (ORDER BY o_orderkey ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) AS m
FROM orders WHERE o_custkey < 30;

SELECT o_orderkey, SUM(o_totalprice) OVER (PARTITION BY o_custkey) AS s FROM orders WHERE o_custkey < 30;

SELECT o_orderkey, o_custkey, PERCENT_RANK() OVER (PARTITION BY o_custkey ORDER BY o_totalprice) AS pr,
  CUME_DIST() OVER (PARTITION BY o_custkey ORDER BY o_totalprice) AS cd
FROM orders WHERE o_custkey < 60;

SELECT o_orderkey, o_custkey, NTH_VALUE(o_orderkey, 2) OVER (PARTITION BY o_custkey ORDER BY o_orderkey ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n2
FROM orders WHERE o_custkey < 60;

SELECT o_orderkey, o_custkey, FIRST_VALUE(o_orderkey) OVER (PARTITION BY o_custkey ORDER BY o_totalprice DESC) AS f,
  LAST_VALUE(o_orderkey) OVER (PARTITION BY o_custkey ORDER BY o_totalprice DESC ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS l
FROM orders WHERE o_custkey < 60;

SELECT o_orderkey, LAG(o_totalprice, 2, 0) OVER (PARTITION BY o_custkey ORDER BY o_orderkey) AS l2,
  LEAD(o_orderkey) OVER (PARTITION BY o_custkey ORDER BY o_orderkey) AS n1
FROM orders WHERE o_custkey < 60;

SELECT o_custkey, o_orderkey, NTILE(3) OVER (PARTITION BY o_custkey ORDER BY o_orderkey) AS t FROM orders WHERE o_custkey < 60;

SELECT o_custkey, SUM(o_totalprice) AS s, RANK() OVER (ORDER BY SUM(o_totalprice) DESC) AS r
FROM orders GROUP BY o_custkey;

SELECT c_nationkey, c_custkey, c_acctbal, ROW_NUMBER() OVER w AS rn FROM customer WHERE c_nationkey < 3
WINDOW w AS (PARTITION BY c_nationkey ORDER BY c_acctbal DESC, c_custkey);

SELECT * FROM (SELECT c_nationkey, c_custkey, ROW_NUMBER() OVER (PARTITION BY c_nationkey ORDER BY c_acctbal DESC, c_custkey) AS rn FROM customer) x WHERE rn <= 2;

SELECT o_custkey, o_orderkey, o_totalprice / SUM(o_totalprice) OVER (PARTITION BY o_custkey) AS share
FROM orders WHERE o_custkey < 40;

SELECT o_orderkey, SUM(o_totalprice) OVER (ORDER BY o_orderdate RANGE BETWEEN INTERVAL 30 DAY PRECEDING AND CURRENT ROW) AS s
FROM orders WHERE o_custkey < 40;

SELECT o_orderkey, COUNT(*) OVER (ORDER BY o_custkey RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) AS c FROM orders WHERE o_custkey < 40;

-- CTEs used several times
WITH rev AS (SELECT l_suppkey AS sk, SUM(l_extendedprice * (1 - l_discount)) AS r FROM lineitem GROUP BY l_suppkey),
     mx AS (SELECT MAX(r) AS m FROM rev)
SELECT sk, r FROM rev, mx WHERE r > (SELECT AVG(r) FROM rev) * 1.2 AND r <= m;

WITH a AS (SELECT n_nationkey AS k, n_name FROM nation), b AS (SELECT k FROM a WHERE k < 10)
SELECT a.k, a.n_name FROM a JOIN b ON a.k = b.k JOIN b AS b2 ON b2.k = a.k;

WITH cnt AS (SELECT o_custkey, COUNT(*) AS n FROM orders GROUP BY o_custkey)
SELECT n, COUNT(*) AS customers FROM cnt GROUP BY n HAVING n > (SELECT AVG(n) FROM cnt);

-- a CTE read two or three times is computed once (a shared result)
WITH revenue0 AS (SELECT l_suppkey AS supplier_no, SUM(l_extendedprice * (1 - l_discount)) AS total_revenue FROM lineitem WHERE l_shipdate >= DATE '1996-01-01' AND l_shipdate < DATE '1996-04-01' GROUP BY l_suppkey)
SELECT s_suppkey, s_name, total_revenue FROM supplier, revenue0 WHERE s_suppkey = supplier_no AND total_revenue = (SELECT MAX(total_revenue) FROM revenue0);

WITH t AS (SELECT o_custkey, o_totalprice, o_orderstatus FROM orders WHERE o_orderdate < DATE '1993-01-01')
SELECT (SELECT COUNT(*) FROM t) AS n, (SELECT SUM(o_totalprice) FROM t WHERE o_orderstatus = 'F') AS s, (SELECT MAX(o_custkey) FROM t) AS m;

WITH c AS (SELECT c_custkey, c_nationkey, c_acctbal FROM customer WHERE c_acctbal > 9000)
SELECT c1.c_custkey, (SELECT COUNT(*) FROM c c3 WHERE c3.c_nationkey = c1.c_nationkey AND c3.c_acctbal > c1.c_acctbal) AS richer
FROM c c1 JOIN c c2 ON c1.c_custkey = c2.c_custkey;

WITH n AS (SELECT n_nationkey, n_name, n_regionkey FROM nation WHERE n_nationkey < 12)
SELECT a.n_name, b.n_name AS other FROM n a JOIN n b ON a.n_regionkey = b.n_regionkey AND a.n_nationkey < b.n_nationkey
UNION ALL SELECT n_name, 'none' FROM n WHERE n_regionkey = 4;

WITH a AS (SELECT o_custkey AS k, COUNT(*) AS c FROM orders GROUP BY o_custkey),
     b AS (SELECT x.k, x.c + y.c AS c2 FROM a x JOIN a y ON x.k = y.k WHERE x.c >= 2)
SELECT b1.k, b1.c2, b2.c2 AS c3 FROM b b1 JOIN b b2 ON b1.k = b2.k WHERE b1.c2 > (SELECT AVG(c2) FROM b);

WITH s AS (SELECT ps_suppkey, SUM(ps_availqty) AS q FROM partsupp GROUP BY ps_suppkey)
SELECT ps_suppkey, q FROM s WHERE q > (SELECT AVG(q) FROM s) AND ps_suppkey IN (SELECT ps_suppkey FROM s WHERE q < (SELECT MAX(q) FROM s) - 1000);

-- ordered
WITH top AS (SELECT o_orderkey, o_totalprice FROM orders ORDER BY o_totalprice DESC, o_orderkey LIMIT 5)
SELECT a.o_orderkey, COUNT(*) AS cheaper FROM top a JOIN top b ON b.o_totalprice < a.o_totalprice GROUP BY a.o_orderkey ORDER BY a.o_orderkey;

WITH e AS (SELECT n_nationkey FROM nation WHERE n_nationkey < 0)
SELECT (SELECT COUNT(*) FROM e) AS n, (SELECT MAX(n_nationkey) FROM e) AS m;

-- set operations
SELECT n_nationkey FROM nation INTERSECT SELECT s_nationkey FROM supplier;
SELECT c_nationkey FROM customer EXCEPT SELECT n_nationkey FROM nation WHERE n_regionkey = 1;
SELECT n_regionkey FROM nation INTERSECT ALL SELECT n_regionkey FROM nation WHERE n_nationkey < 10;
SELECT n_regionkey FROM nation EXCEPT ALL SELECT n_regionkey FROM nation WHERE n_nationkey < 10;
SELECT n_nationkey FROM nation WHERE n_nationkey < 5 UNION SELECT n_nationkey FROM nation WHERE n_nationkey BETWEEN 3 AND 8 EXCEPT SELECT 4;
(SELECT n_nationkey FROM nation WHERE n_nationkey < 5 UNION ALL SELECT n_nationkey FROM nation WHERE n_nationkey < 3) INTERSECT SELECT n_nationkey FROM nation WHERE n_nationkey > 1;

-- ordered
SELECT n_name FROM nation WHERE n_regionkey = 0 UNION ALL SELECT r_name FROM region ORDER BY 1 LIMIT 7;

-- correlated subqueries
SELECT c_custkey, (SELECT COUNT(*) FROM orders WHERE o_custkey = c_custkey) AS n FROM customer WHERE c_custkey < 30;

SELECT c_custkey, (SELECT MAX(o_totalprice) FROM orders WHERE o_custkey = c_custkey) AS m FROM customer WHERE c_custkey < 30;

SELECT s_suppkey FROM supplier s WHERE s_acctbal > (SELECT AVG(s2.s_acctbal) FROM supplier s2 WHERE s2.s_nationkey = s.s_nationkey);

SELECT o_custkey, COUNT(*) AS n FROM orders o GROUP BY o_custkey
HAVING COUNT(*) > (SELECT COUNT(*) / 100 FROM orders);

SELECT c_nationkey, SUM(c_acctbal) AS s FROM customer GROUP BY c_nationkey
HAVING SUM(c_acctbal) > (SELECT AVG(c_acctbal) * 55 FROM customer);

SELECT p_partkey FROM part WHERE p_size > 45 AND EXISTS (SELECT 1 FROM partsupp WHERE ps_partkey = p_partkey AND ps_availqty > 9000);

SELECT p_partkey FROM part WHERE p_size > 48 AND NOT EXISTS (SELECT 1 FROM lineitem WHERE l_partkey = p_partkey AND l_quantity > 45);

SELECT n_name FROM nation WHERE n_nationkey NOT IN (SELECT c_nationkey FROM customer WHERE c_acctbal > 9900);

SELECT n_name, (SELECT r_name FROM region WHERE r_regionkey = n_regionkey) AS r FROM nation;

SELECT s_name, (SELECT n_name FROM nation WHERE n_nationkey = s_nationkey) AS n FROM supplier WHERE s_suppkey < 20;

SELECT p_partkey FROM part WHERE p_partkey < 300 AND p_retailprice > ALL (SELECT ps_supplycost * 2 FROM partsupp WHERE ps_partkey = p_partkey);

SELECT o_orderkey FROM orders WHERE o_custkey < 60 AND o_totalprice >= ALL (SELECT o2.o_totalprice FROM orders o2 WHERE o2.o_custkey = orders.o_custkey);

SELECT c_custkey, (SELECT COUNT(*) FROM orders WHERE o_custkey = c_custkey AND o_totalprice > c_acctbal * 20) AS c FROM customer WHERE c_custkey < 100;

SELECT n_name, n_nationkey > ANY (SELECT r_regionkey * 5 FROM region) AS a, n_nationkey < ALL (SELECT r_regionkey * 5 FROM region WHERE r_regionkey > 0) AS b FROM nation;

SELECT c_custkey FROM customer WHERE c_custkey < 200 AND c_acctbal > (SELECT AVG(c2.c_acctbal) FROM customer c2 WHERE c2.c_nationkey = customer.c_nationkey AND c2.c_custkey < customer.c_custkey);

SELECT o_orderkey, (SELECT MAX(l_shipdate) FROM lineitem WHERE l_orderkey = o_orderkey AND l_shipdate < o_orderdate + INTERVAL 30 DAY) AS d FROM orders WHERE o_orderkey < 200;

SELECT c_custkey FROM customer WHERE c_custkey < 100 AND c_acctbal > (SELECT AVG(o_totalprice) / 20 FROM orders WHERE o_custkey = c_custkey);

SELECT n_name, (SELECT COUNT(*) FROM customer WHERE c_nationkey = n_nationkey AND c_acctbal > 5000) AS rich FROM nation;

SELECT c_custkey, CASE WHEN EXISTS (SELECT 1 FROM orders WHERE o_custkey = c_custkey AND o_orderstatus = 'F') THEN 'has F' ELSE 'no F' END AS f FROM customer WHERE c_custkey < 40;

SELECT (SELECT MAX(l_quantity) FROM lineitem) - (SELECT MIN(l_quantity) FROM lineitem) AS spread;

-- CASE in aggregates
SELECT l_returnflag, SUM(CASE WHEN l_discount > 0.05 THEN l_extendedprice ELSE 0 END) AS hi,
  COUNT(CASE WHEN l_tax = 0 THEN 1 END) AS notax, AVG(CASE WHEN l_quantity > 25 THEN l_quantity END) AS aq
FROM lineitem GROUP BY l_returnflag;

SELECT SUM(CASE o_orderpriority WHEN '1-URGENT' THEN 1 WHEN '2-HIGH' THEN 1 ELSE 0 END) AS high FROM orders;

-- aggregates: statistics and friends
SELECT l_returnflag, STDDEV(l_quantity) AS sd, STDDEV_POP(l_quantity) AS sdp, VARIANCE(l_quantity) AS v, VAR_POP(l_quantity) AS vp FROM lineitem GROUP BY l_returnflag;
SELECT l_linestatus, MEDIAN(l_quantity) AS m FROM lineitem GROUP BY l_linestatus;
SELECT QUANTILE_CONT(l_extendedprice, 0.25) AS q FROM lineitem;
SELECT QUANTILE_DISC(l_quantity, 0.9) AS q FROM lineitem;
SELECT o_orderpriority, ARRAY_AGG(o_orderkey ORDER BY o_totalprice DESC, o_orderkey)[1] AS top, LEN(LIST(o_orderkey)) AS n FROM orders GROUP BY o_orderpriority;
SELECT o_orderpriority, LIST(o_orderstatus ORDER BY o_orderkey)[1:2] AS s FROM orders GROUP BY o_orderpriority;
SELECT n_name, LIST(r_name ORDER BY r_name) AS r FROM nation JOIN region ON n_regionkey = r_regionkey GROUP BY n_name;
SELECT l_returnflag, MEDIAN(l_extendedprice) AS m, QUANTILE_CONT(l_extendedprice, 0.37) AS q, QUANTILE_CONT(l_discount - 0.05, 0.5) AS dq, QUANTILE_DISC(l_tax, 0.5) AS t FROM lineitem GROUP BY l_returnflag;
SELECT BOOL_AND(l_quantity > 0) AS a, BOOL_OR(l_quantity > 49) AS o FROM lineitem;
-- ordered
SELECT n_regionkey, STRING_AGG(n_name, ',' ORDER BY n_name) AS names FROM nation GROUP BY n_regionkey ORDER BY n_regionkey;
SELECT COUNT(DISTINCT l_suppkey) AS s, COUNT(DISTINCT l_partkey) AS p FROM lineitem;
SELECT CORR(l_quantity, l_extendedprice) AS c, COVAR_POP(l_quantity, l_discount) AS cp FROM lineitem;
SELECT MODE(l_quantity) AS m FROM lineitem WHERE l_orderkey < 100;
SELECT ARG_MAX(o_orderkey, o_totalprice) AS k, ARG_MIN(o_orderkey, o_totalprice) AS kmin FROM orders;
SELECT COUNT(*) FILTER (WHERE l_returnflag = 'R') AS r, SUM(l_quantity) FILTER (WHERE l_linestatus = 'O') AS o FROM lineitem;
SELECT REGR_SLOPE(l_extendedprice, l_quantity) AS sl, REGR_INTERCEPT(l_extendedprice, l_quantity) AS ic, COVAR_SAMP(l_quantity, l_discount) AS cs, REGR_R2(l_extendedprice, l_quantity) AS r2 FROM lineitem;
SELECT l_returnflag, ARG_MIN(l_orderkey * 10 + l_linenumber, l_extendedprice * 100000 + l_orderkey) AS k, STDDEV_POP(l_extendedprice) AS sd FROM lineitem GROUP BY l_returnflag;
SELECT l_orderkey, l_linenumber, AVG(l_extendedprice) OVER (PARTITION BY l_suppkey ORDER BY l_extendedprice RANGE BETWEEN 1000 PRECEDING AND 1000 FOLLOWING) AS a FROM lineitem WHERE l_suppkey < 5;
SELECT o_orderkey, COUNT(*) OVER (PARTITION BY o_orderpriority ORDER BY o_orderdate GROUPS BETWEEN 3 PRECEDING AND 3 FOLLOWING EXCLUDE TIES) AS c FROM orders WHERE o_custkey < 100;

-- misc query shapes
-- ordered
SELECT DISTINCT ON (c_nationkey) c_nationkey, c_custkey, c_acctbal FROM customer ORDER BY c_nationkey, c_acctbal DESC;
-- ordered
SELECT c_custkey, c_acctbal FROM customer ORDER BY c_acctbal DESC, c_custkey LIMIT 5 OFFSET 10;
-- ordered
SELECT n_name AS nm, n_regionkey FROM nation ORDER BY n_regionkey DESC, nm;
-- ordered
SELECT n_name, n_nationkey FROM nation ORDER BY LENGTH(n_name), 2;
-- ordered
SELECT n_regionkey * 10 + n_nationkey AS k FROM nation ORDER BY k % 7, k;
SELECT COUNT(*) AS c, SUM(l_quantity) AS s FROM lineitem HAVING COUNT(*) > 10;
SELECT COUNT(*) AS c FROM lineitem HAVING COUNT(*) > 1000000000;
SELECT COUNT(*) AS c, SUM(l_quantity) AS s, AVG(l_quantity) AS a, MIN(l_shipdate) AS m, MAX(l_comment) AS x FROM lineitem WHERE l_quantity < 0;
SELECT l_returnflag, COUNT(*) AS c FROM lineitem WHERE l_quantity < 0 GROUP BY l_returnflag;
SELECT SUM(l_extendedprice * l_discount * l_tax) AS s FROM lineitem;
SELECT SUM(l_extendedprice) / COUNT(*) AS a, SUM(l_extendedprice) / SUM(l_quantity) AS p FROM lineitem;
SELECT o_orderpriority, COUNT(*) AS c FROM orders WHERE o_orderdate BETWEEN SYMMETRIC DATE '1995-01-01' AND DATE '1994-01-01' GROUP BY o_orderpriority;
SELECT COUNT(*) AS c FROM orders WHERE o_orderdate >= DATE '1995-01-01' - INTERVAL 1 YEAR AND o_orderdate < DATE '1995-01-01' + INTERVAL '3' MONTH;
SELECT EXTRACT(YEAR FROM o_orderdate) AS y, EXTRACT(QUARTER FROM o_orderdate) AS q, COUNT(*) AS c FROM orders GROUP BY 1, 2;
SELECT DATE_TRUNC('month', o_orderdate) AS m, COUNT(*) AS c FROM orders WHERE o_orderdate < DATE '1993-01-01' GROUP BY 1;
SELECT YEAR(o_orderdate) AS y, MONTH(o_orderdate) AS m, DAY(o_orderdate) AS d, COUNT(*) AS c FROM orders WHERE o_custkey < 20 GROUP BY ALL;
SELECT c_mktsegment, COUNT(*) AS c FROM customer GROUP BY ALL;
SELECT COUNT(*) AS c FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey AND l.l_shipdate > o.o_orderdate + 100;
SELECT n1.n_name, n2.n_name AS n2name FROM nation n1 JOIN nation n2 ON n1.n_regionkey = n2.n_regionkey AND n1.n_nationkey < n2.n_nationkey WHERE n1.n_regionkey = 2;
SELECT r_name, n_name FROM region LEFT JOIN nation ON r_regionkey = n_regionkey AND n_nationkey > 20;
SELECT r_name, n_name FROM region FULL OUTER JOIN nation ON r_regionkey = n_regionkey AND n_nationkey > 20;
SELECT c.c_custkey, o.cnt FROM customer c LEFT JOIN (SELECT o_custkey, COUNT(*) AS cnt FROM orders GROUP BY o_custkey) o ON c.c_custkey = o.o_custkey WHERE c.c_custkey < 20;
SELECT ps_partkey, SUM(ps_supplycost * ps_availqty) AS v FROM partsupp GROUP BY ps_partkey
HAVING SUM(ps_supplycost * ps_availqty) > (SELECT SUM(ps_supplycost * ps_availqty) * 0.002 FROM partsupp);
SELECT n_name, s_cnt FROM nation, LATERAL (SELECT COUNT(*) AS s_cnt FROM supplier WHERE s_nationkey = n_nationkey) x;
SELECT c_custkey, x.o_orderkey, x.o_totalprice FROM customer,
LATERAL (SELECT o_orderkey, o_totalprice FROM orders WHERE o_custkey = c_custkey ORDER BY o_totalprice DESC, o_orderkey LIMIT 3) x
WHERE c_custkey < 200;
SELECT n_name, x.s_name, x.s_acctbal FROM nation CROSS JOIN LATERAL (SELECT s_name, s_acctbal FROM supplier WHERE s_nationkey = n_nationkey ORDER BY s_acctbal DESC LIMIT 2 OFFSET 1) AS x;
SELECT c_custkey, x.last_order FROM customer LEFT JOIN LATERAL (SELECT MAX(o_orderdate) AS last_order FROM orders WHERE o_custkey = c_custkey AND o_orderstatus = 'F') x ON true WHERE c_custkey < 300;
SELECT c_custkey, x.o_orderkey FROM customer LEFT JOIN LATERAL (SELECT o_orderkey FROM orders WHERE o_custkey = c_custkey ORDER BY o_orderdate, o_orderkey LIMIT 1) x ON true WHERE c_custkey % 50 = 1;
SELECT r_name, x.n_name, x.c FROM region, LATERAL (SELECT n_name, COUNT(*) AS c FROM nation JOIN supplier ON s_nationkey = n_nationkey WHERE n_regionkey = r_regionkey GROUP BY n_name) x;
SELECT n_name, x.cnt, x.tot FROM nation, LATERAL (SELECT COUNT(*) AS cnt, SUM(c_acctbal) AS tot FROM customer WHERE c_nationkey = n_nationkey AND c_acctbal > 9900 - n_nationkey * 10) x;
SELECT p_partkey, x.ps_suppkey FROM part, LATERAL (SELECT ps_suppkey FROM partsupp WHERE ps_partkey = p_partkey AND ps_supplycost < p_retailprice / 10 ORDER BY ps_supplycost, ps_suppkey LIMIT 1) x WHERE p_partkey < 400;
SELECT n_name, x.d FROM nation, LATERAL (SELECT n_nationkey * 2 + n_regionkey AS d) x;
SELECT n_name, x.s_name, x.rk, x.share FROM nation, LATERAL (SELECT s_name, RANK() OVER (ORDER BY s_acctbal DESC) AS rk, s_acctbal / SUM(s_acctbal) OVER () AS share FROM supplier WHERE s_nationkey = n_nationkey) x WHERE n_nationkey < 5;
-- TPC-H Q21-like: correlated two levels out
SELECT s_name, COUNT(*) AS numwait FROM supplier, lineitem l1, orders, nation
WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F' AND l1.l_receiptdate > l1.l_commitdate
AND EXISTS (SELECT 1 FROM lineitem l2 WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey
  AND EXISTS (SELECT 1 FROM partsupp WHERE ps_partkey = l2.l_partkey AND ps_suppkey = l1.l_suppkey))
AND s_nationkey = n_nationkey AND n_name = 'SAUDI ARABIA'
GROUP BY s_name;
SELECT c_custkey FROM customer WHERE c_custkey < 500 AND EXISTS (SELECT 1 FROM orders WHERE o_custkey = c_custkey
  AND NOT EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey AND l_quantity < c_acctbal / 1000));
SELECT n_name, (SELECT COUNT(*) FROM supplier WHERE s_nationkey = n_nationkey AND s_suppkey IN (SELECT ps_suppkey FROM partsupp WHERE ps_availqty > 9000 + n_nationkey * 10)) AS c FROM nation;
SELECT o_orderkey, x.n FROM orders LEFT JOIN LATERAL (SELECT l_linenumber AS n FROM lineitem WHERE l_orderkey = o_orderkey AND l_quantity > 45 ORDER BY l_linenumber LIMIT 2) x ON true WHERE o_orderkey < 500;
SELECT COUNT(*) AS c FROM (SELECT DISTINCT l_orderkey, l_suppkey FROM lineitem) x;
SELECT COUNT(DISTINCT (l_orderkey, l_suppkey)) AS c FROM lineitem;
SELECT AVG(DISTINCT l_quantity) AS a, SUM(DISTINCT l_quantity) AS s FROM lineitem;
SELECT p_brand, p_type, COUNT(DISTINCT ps_suppkey) AS c FROM partsupp JOIN part ON p_partkey = ps_partkey WHERE p_size IN (1, 5, 9) GROUP BY p_brand, p_type HAVING COUNT(DISTINCT ps_suppkey) > 3;
-- window aggregates without prefix sums over running and sliding frames whose
-- total frame size is far past the old per-frame evaluation cap (2^25 rows)
SELECT * FROM (SELECT o_orderkey, MEDIAN(CAST(o_totalprice AS DOUBLE)) OVER (ORDER BY o_orderdate) AS m, QUANTILE_DISC(CAST(o_totalprice AS DOUBLE), 0.9) OVER (ORDER BY o_orderdate DESC, o_orderkey ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS q FROM orders) t WHERE o_orderkey % 16 = 1;
SELECT COUNT(*) AS n, SUM(m) AS sm, MIN(m) AS mn, MAX(m) AS mx FROM (SELECT MEDIAN(CAST(o_totalprice AS DOUBLE)) OVER (PARTITION BY o_orderstatus ORDER BY o_orderdate RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS m FROM orders) t;
SELECT * FROM (SELECT l_orderkey, l_linenumber, QUANTILE_CONT(CAST(l_extendedprice AS DOUBLE), 0.25) OVER w AS q, COUNT(DISTINCT l_suppkey) OVER w AS cd, BIT_XOR(l_partkey) OVER w AS bx, BOOL_AND(l_quantity > 2) OVER w AS ba FROM lineitem WINDOW w AS (PARTITION BY l_returnflag ORDER BY l_orderkey, l_linenumber ROWS BETWEEN 300 PRECEDING AND 200 FOLLOWING)) t WHERE l_orderkey % 50 = 1;
SELECT * FROM (SELECT l_orderkey, l_linenumber, MODE(l_linenumber) OVER (PARTITION BY l_returnflag ORDER BY l_orderkey, l_linenumber) AS md, MEDIAN(l_quantity) OVER (ORDER BY l_shipdate RANGE BETWEEN INTERVAL 30 DAY PRECEDING AND INTERVAL 30 DAY FOLLOWING) AS ms FROM lineitem) t WHERE l_orderkey % 64 = 3;
SELECT * FROM (SELECT o_orderkey, SUM(DISTINCT o_custkey) OVER (PARTITION BY o_orderpriority ORDER BY o_orderdate) AS s, ARG_MIN(o_orderkey, o_totalprice) OVER (ORDER BY o_orderdate, o_orderkey ROWS BETWEEN 500 PRECEDING AND 500 FOLLOWING) AS am FROM orders) t WHERE o_orderkey % 32 = 5;

-- A parenthesised select item is named by the expression inside (TPC-DS Q41's SELECT DISTINCT(i_product_name)).
SELECT DISTINCT(o_orderstatus), (o_orderpriority) FROM orders;

-- Derived tables without an alias (DuckDB and PostgreSQL 16 accept them).
SELECT COUNT(*) AS n, MAX(o_orderkey) AS mx FROM (SELECT o_orderkey FROM orders WHERE o_totalprice > 1000) WHERE o_orderkey % 3 = 0;
SELECT unnamed_subquery.a, b FROM (SELECT 1 AS a), (SELECT 2 AS b);

-- Filters pushed through constant-tagged UNION ALL branches (empty branches pruned), and
-- constant-false filters under joins, aggregates, ROLLUP and set operations.
SELECT t, COUNT(*) AS n, SUM(k) AS sk FROM (SELECT 's' AS t, o_orderkey AS k FROM orders UNION ALL SELECT 'c', c_custkey FROM customer UNION ALL SELECT 'w', s_suppkey FROM supplier) x WHERE t = 'c' GROUP BY t;
SELECT COUNT(*) AS n FROM (SELECT 's' AS t, o_orderkey AS k FROM orders UNION ALL SELECT 'c', c_custkey FROM customer) x WHERE t = 'z';
SELECT c_nationkey, COUNT(*) AS n, SUM(c_acctbal) AS s FROM customer WHERE 1 = 0 GROUP BY ROLLUP (c_nationkey);
SELECT COUNT(*) AS n, SUM(o_totalprice) AS s FROM orders JOIN customer ON o_custkey = c_custkey AND 'a' = 'b';
SELECT c_custkey, o_orderkey FROM customer LEFT JOIN (SELECT * FROM orders WHERE NULL) o ON o_custkey = c_custkey WHERE c_custkey < 20;
SELECT c_custkey FROM customer WHERE c_custkey < 30 EXCEPT SELECT o_custkey FROM orders WHERE FALSE;
SELECT c_nationkey FROM customer WHERE FALSE UNION SELECT n_nationkey FROM nation WHERE n_nationkey < 5;
SELECT o_orderkey FROM orders WHERE o_orderkey < 10 AND NOT EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey AND 1 = 2);

-- Outer joins under filters that reject (or keep) the padded side's NULLs.
SELECT c_custkey, o_orderkey FROM customer LEFT JOIN orders ON o_custkey = c_custkey WHERE o_totalprice > 400000;
SELECT COUNT(*) AS n FROM customer LEFT JOIN orders ON o_custkey = c_custkey WHERE o_totalprice IS NULL;
SELECT COUNT(*) AS n FROM customer LEFT JOIN orders ON o_custkey = c_custkey WHERE o_totalprice > 400000 OR c_nationkey = 1;
SELECT COUNT(*) AS n FROM customer LEFT JOIN orders ON o_custkey = c_custkey WHERE COALESCE(o_totalprice, 0) < 1000;
SELECT COUNT(*) AS n, COUNT(o_orderkey) AS o, COUNT(c_custkey) AS c FROM customer FULL JOIN orders ON o_custkey = c_custkey AND o_orderstatus = 'F' WHERE o_orderkey IS NOT NULL;
SELECT COUNT(*) AS n FROM customer FULL JOIN orders ON o_custkey = c_custkey AND o_orderstatus = 'F' WHERE c_custkey > 10 AND o_orderkey > 10;
SELECT COUNT(*) AS n FROM customer RIGHT JOIN nation ON c_nationkey = n_nationkey AND c_acctbal > 9990 WHERE NOT (c_custkey < 0);
SELECT c_name FROM customer WHERE c_nationkey = (SELECT MAX(s_nationkey) FROM supplier WHERE s_suppkey < 0);
SELECT COUNT(*) AS n FROM customer WHERE c_acctbal > 1.1 * (SELECT AVG(c2.c_acctbal) FROM customer c2 WHERE c2.c_nationkey = customer.c_nationkey);
SELECT n_name, cnt FROM nation LEFT JOIN (SELECT c_nationkey, COUNT(*) AS cnt FROM customer WHERE c_acctbal > 9000 GROUP BY c_nationkey) x ON c_nationkey = n_nationkey WHERE cnt IS NOT DISTINCT FROM NULL OR cnt > 1;

-- A CTE read twice with different filters on each reader (the OR of the readers' filters goes into the CTE; TPC-DS Q39's shape).
WITH inv AS (SELECT l_suppkey AS s, MONTH(l_shipdate) AS m, AVG(l_quantity) AS q, STDDEV_SAMP(l_quantity) AS sd FROM lineitem GROUP BY l_suppkey, MONTH(l_shipdate)) SELECT a.s, a.q, b.q, a.sd FROM inv a JOIN inv b ON a.s = b.s WHERE a.m = 1 AND b.m = 2 AND a.s < 40;
WITH t AS (SELECT o_custkey, o_orderstatus, COUNT(*) AS n FROM orders GROUP BY o_custkey, o_orderstatus) SELECT COUNT(*) AS c, SUM(a.n) AS sa, SUM(b.n) AS sb FROM t a JOIN t b ON a.o_custkey = b.o_custkey WHERE a.o_orderstatus = 'F' AND (b.o_orderstatus = 'O' OR b.n > 3);

-- Outer joins under an inner join whose condition rejects (or keeps) the padded side's NULLs (TPC-DS Q93's shape).
SELECT COUNT(*) AS n, SUM(o_totalprice) AS s FROM customer LEFT JOIN orders ON o_custkey = c_custkey, nation WHERE o_orderkey % 25 = n_nationkey;
SELECT COUNT(*) AS n FROM nation, customer LEFT JOIN orders ON o_custkey = c_custkey AND o_totalprice > 300000 WHERE COALESCE(o_orderkey, 0) % 25 = n_nationkey;
SELECT COUNT(*) AS n FROM nation JOIN (customer FULL JOIN orders ON o_custkey = c_custkey AND o_orderstatus = 'F') ON c_nationkey = n_nationkey;
WITH inv AS (SELECT l_suppkey AS s, MONTH(l_shipdate) AS m, AVG(l_quantity) AS q, STDDEV_SAMP(l_quantity) AS sd FROM lineitem GROUP BY l_suppkey, MONTH(l_shipdate)) SELECT a.s, a.q, b.q FROM inv a JOIN inv b ON a.s = b.s WHERE a.m = 1 AND a.sd > 14 AND b.m = 2 AND a.s < 60;
