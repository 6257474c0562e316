-- database: sqlgen
-- WITH RECURSIVE over the sqlgen tables (id unique 1..rows, k 1..100 and
-- k2 1..40 with NULLs): counting, factorials, fibonacci, transitive
-- closure with UNION stopping at cycles, tree paths, several WITH queries,
-- a recursive query read twice, in joins and subqueries.

-- ordered
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT n FROM t ORDER BY n;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3000) SELECT COUNT(*) AS c, SUM(n) AS s, MIN(n) AS mn, MAX(n) AS mx FROM t;
WITH RECURSIVE t AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT n * 10 AS m FROM t;
-- ordered
WITH RECURSIVE fact(n, f) AS (SELECT 1, CAST(1 AS BIGINT) UNION ALL SELECT n + 1, f * (n + 1) FROM fact WHERE n < 20) SELECT n, f FROM fact ORDER BY n;
-- ordered
WITH RECURSIVE fact(n, f) AS (SELECT 0, CAST(1 AS DECIMAL(38,0)) UNION ALL SELECT n + 1, f * (n + 1) FROM fact WHERE n < 30) SELECT n, f FROM fact ORDER BY n;
WITH RECURSIVE fact(n, f) AS (SELECT 1, CAST(1 AS BIGINT) UNION ALL SELECT n + 1, f * (n + 1) FROM fact WHERE n < 25) SELECT n, f FROM fact;
-- ordered
WITH RECURSIVE fib(n, a, b) AS (SELECT 1, CAST(0 AS BIGINT), CAST(1 AS BIGINT) UNION ALL SELECT n + 1, b, a + b FROM fib WHERE n < 60) SELECT n, a FROM fib ORDER BY n;
-- ordered
WITH RECURSIVE r(n) AS (SELECT CAST(1 AS BIGINT) UNION SELECT e.k2 FROM r JOIN t4 e ON e.k = r.n WHERE e.k2 IS NOT NULL) SELECT n FROM r ORDER BY n;
WITH RECURSIVE tc(a, b) AS (SELECT k, k2 FROM t4 WHERE k IS NOT NULL AND k2 IS NOT NULL UNION SELECT tc.a, e.k2 FROM tc JOIN t4 e ON e.k = tc.b WHERE e.k2 IS NOT NULL) SELECT COUNT(*) AS c, SUM(a) AS sa, SUM(b) AS sb FROM tc;
WITH RECURSIVE tc(a, b) AS (SELECT k, k2 FROM t3 WHERE k IS NOT NULL AND k2 IS NOT NULL UNION SELECT tc.a, e.k2 FROM t3 e JOIN tc ON tc.b = e.k WHERE e.k2 IS NOT NULL) SELECT a, COUNT(*) AS reach FROM tc GROUP BY a;
WITH RECURSIVE walk(node, hops) AS (SELECT CAST(7 AS BIGINT), 0 UNION ALL SELECT e.k2, w.hops + 1 FROM walk w JOIN t4 e ON e.k = w.node WHERE w.hops < 4 AND e.k2 IS NOT NULL) SELECT hops, COUNT(*) AS c, SUM(node) AS s FROM walk GROUP BY hops;
-- ordered
WITH RECURSIVE p(id, path, depth) AS (SELECT id, CAST(id AS VARCHAR), 0 FROM t4 WHERE id = 1 UNION ALL SELECT c.id, p.path || '/' || CAST(c.id AS VARCHAR), p.depth + 1 FROM p JOIN t4 c ON c.id BETWEEN 2 * p.id AND 2 * p.id + 1 WHERE c.id > 1) SELECT id, path, depth FROM p ORDER BY id;
-- ordered
WITH RECURSIVE up(id, anc, s) AS (SELECT id, id, COALESCE(s, '?') FROM t4 WHERE id IN (100, 77) UNION ALL SELECT up.id, p.id, up.s || '<' || COALESCE(p.s, '?') FROM up JOIN t4 p ON p.id = up.anc / 2 WHERE up.anc > 1) SELECT id, anc, s FROM up ORDER BY id, anc;
WITH RECURSIVE t(x) AS (SELECT CAST(NULL AS INTEGER) UNION SELECT x FROM t) SELECT COUNT(*) AS c, COUNT(x) AS cx FROM t;
WITH RECURSIVE t(x, y) AS (SELECT 1, CAST(NULL AS VARCHAR) UNION SELECT x % 3 + 1, y FROM t) SELECT x, y FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 4), u AS (SELECT n * 2 AS m FROM t) SELECT a.n, b.m FROM t a JOIN u b ON b.m = a.n;
WITH RECURSIVE edges AS (SELECT k AS src, k2 AS dst FROM t4 WHERE k IS NOT NULL AND k2 IS NOT NULL), r(n, d) AS (SELECT CAST(3 AS BIGINT), 0 UNION SELECT e.dst, r.d + 1 FROM r JOIN edges e ON e.src = r.n WHERE r.d < 3) SELECT d, COUNT(*) AS c, SUM(n) AS s FROM r GROUP BY d;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 6) SELECT a.n, b.n AS bn FROM t a JOIN t b ON a.n = b.n + 1;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 50) SELECT id, k2 FROM t4 WHERE k2 IN (SELECT n FROM t WHERE n % 7 = 0);
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 50) SELECT id, (SELECT MAX(n) FROM t WHERE n < t4.k2) AS m FROM t4 WHERE id < 20;
SELECT COUNT(*) AS c FROM (WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT n FROM t) x JOIN t4 ON t4.k2 = x.n;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT n, (SELECT COUNT(*) FROM t t2 WHERE t2.n <= t.n) AS c FROM t;
WITH RECURSIVE t(n, k) AS (SELECT id, k FROM t4 WHERE id <= 3 UNION ALL SELECT t.n, e.k FROM t JOIN t4 e ON e.id = t.k WHERE t.k IS NOT NULL) SELECT n, COUNT(*) AS c, SUM(k) AS s FROM t GROUP BY n;
-- known: a column computed from an integer literal is BIGINT here (INTEGER in DuckDB), for any subquery; typeof names the column's type
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + CAST(1 AS BIGINT) FROM t WHERE n < 5) SELECT n, typeof(n) AS ty FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + CAST(1 AS BIGINT) FROM t WHERE n < 5) SELECT n FROM t;
WITH RECURSIVE t(n) AS (SELECT CAST(1 AS BIGINT) UNION ALL SELECT n * CAST(100000 AS BIGINT) FROM t WHERE n < 1000000000000) SELECT n FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n * CAST(100000 AS BIGINT) FROM t WHERE n < 1000000) SELECT n FROM t;
WITH RECURSIVE t(d, v) AS (SELECT 1, CAST(1.5 AS DOUBLE) UNION ALL SELECT d + 1, v * 1.5 FROM t WHERE d < 10) SELECT d, v FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT n FROM t WHERE n > 2 UNION ALL SELECT n FROM t WHERE n < 2;
WITH RECURSIVE x AS (SELECT 1 AS a UNION ALL SELECT 2) SELECT a FROM x;
WITH RECURSIVE t(a, b) AS (SELECT 1, 'x' UNION ALL SELECT a + 1, b || 'y' FROM t LEFT JOIN t3 ON t3.id = t.a * 1000 WHERE a < 5) SELECT a, b FROM t;
WITH RECURSIVE t(n) AS (SELECT id FROM t4 WHERE id < 4 UNION ALL SELECT n + 10 FROM t WHERE n < 40 AND EXISTS (SELECT 1 FROM t3 WHERE t3.id = t.n)) SELECT n FROM t;
