-- database: sqlgen
-- Table functions (range, generate_series, unnest) and UNNEST in the select
-- list, over the NULL-heavy sqlgen tables (id, k, k2, i, b, d, f, s, dt, ts, flag).

-- range / generate_series in FROM
SELECT * FROM range(5);
SELECT * FROM range(2, 7);
SELECT * FROM range(1, 10, 3);
SELECT * FROM range(10, 1, -3);
SELECT * FROM range(5, 1);
SELECT * FROM range(0);
SELECT * FROM range(-3);
SELECT * FROM generate_series(3);
SELECT * FROM generate_series(1, 5, 2);
SELECT * FROM generate_series(10, 1, -3);
SELECT * FROM generate_series(1, 10, -1);
SELECT * FROM range(NULL);
SELECT * FROM range(1, 10, NULL);
SELECT * FROM range(1, 3, 0);
SELECT * FROM generate_series(1, 3, 0);
SELECT * FROM range(1.5);
SELECT * FROM range('a');
SELECT * FROM range(1, 2, 3, 4);
SELECT * FROM range(9223372036854775806, 9223372036854775807);
SELECT * FROM generate_series(9223372036854775806, 9223372036854775807);
SELECT * FROM range(-9223372036854775808, 9223372036854775807, 9223372036854775807);
SELECT * FROM generate_series(-9223372036854775807, -9223372036854775808, -1);
SELECT COUNT(*) AS c, SUM(range) AS s, MIN(range) AS lo, MAX(range) AS hi FROM range(1000000);
SELECT COUNT(*) AS c FROM range(0, 3000000, 7);
-- ordered
SELECT * FROM range(100000000) LIMIT 3;
SELECT range FROM range(5) WHERE range % 2 = 1;
SELECT r.range * 2 AS d FROM range(4) AS r;
SELECT range.range FROM range(2);
SELECT n FROM range(3) AS t(n);
SELECT t.n FROM generate_series(1, 3) t(n);
SELECT * FROM range(3) t(a, b);
SELECT a.range AS x, b.range AS y FROM range(3) a, range(2) b;
SELECT * FROM range(3) a CROSS JOIN generate_series(1, 2) b;
SELECT typeof(range) AS t FROM range(1);

-- dates and timestamps with an INTERVAL step
SELECT * FROM range(DATE '2024-01-01', DATE '2024-01-04', INTERVAL 1 DAY);
SELECT * FROM generate_series(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-01 03:00:00', INTERVAL 1 HOUR);
SELECT * FROM range(TIMESTAMP '2024-01-31', TIMESTAMP '2024-05-01', INTERVAL 1 MONTH);
SELECT * FROM generate_series(TIMESTAMP '2024-03-01', TIMESTAMP '2024-01-01', INTERVAL '-1 month');
SELECT * FROM range(DATE '2024-01-01', DATE '2024-01-04', INTERVAL '1 month');
SELECT * FROM range(DATE '2024-01-01', DATE '2024-01-04', INTERVAL '0 days');
SELECT * FROM range(DATE '2024-01-01', DATE '2024-01-04');
SELECT typeof(generate_series) AS t FROM generate_series(DATE '2024-01-01', DATE '2024-01-02', INTERVAL 1 DAY);

-- joins with tables
SELECT t4.id, r.range FROM t4 JOIN range(5) r ON r.range = t4.i;
SELECT t4.id, r.range FROM range(5) r JOIN t4 ON r.range = t4.i;
SELECT t4.id, r.range FROM t4 LEFT JOIN range(5) r ON r.range = t4.i WHERE t4.id < 40;
SELECT t4.id, r.range FROM t4, range(3) r WHERE t4.id < 10;
SELECT t4.id, g FROM t4, generate_series(1, t4.k) AS s(g) WHERE t4.id < 30;
SELECT t4.id, g FROM t4 JOIN range(t4.k) AS s(g) ON g > 1 WHERE t4.id < 50;
SELECT t4.id, g FROM t4 CROSS JOIN range(t4.i, t4.i + 2) AS s(g) WHERE t4.id < 50;
SELECT k, COUNT(*) AS c FROM t3, range(k) GROUP BY k;
SELECT t4.id, r FROM t4, range(t4.i, 0, -1) AS x(r) WHERE t4.id < 40;
SELECT t4.id, g FROM t4 LEFT JOIN range(t4.k) AS s(g) ON g > 1;
SELECT t4.id, g FROM t4 LEFT JOIN range(t4.k) AS s(g) ON g > t4.i;
SELECT t4.id, g FROM t4 LEFT JOIN generate_series(t4.i, 3) AS s(g) ON true WHERE t4.id < 40;
SELECT t4.id, g FROM t4 LEFT JOIN range(t4.k) AS s(g) ON g > 1 WHERE g IS NULL;
SELECT t4.id, x FROM t4 LEFT JOIN unnest(CASE WHEN t4.id % 3 = 0 THEN [t4.i, t4.k] WHEN t4.id % 3 = 1 THEN [t4.i, t4.k][3:1] END) AS u(x) ON x IS NOT NULL;
SELECT COUNT(*) AS c, COUNT(g) AS cg FROM t1 LEFT JOIN range(t1.k) AS s(g) ON g % 5 = 0;
SELECT t4.id, g FROM t4 RIGHT JOIN range(t4.k) AS s(g) ON g > 1;

-- table functions in subqueries (correlated ones expand per outer row)
SELECT id, (SELECT SUM(x) FROM unnest([t4.i, t4.k2]) AS u(x)) AS s FROM t4 WHERE id < 40;
SELECT id, (SELECT COUNT(*) FROM range(t4.k) r) AS c FROM t4 WHERE id < 40;
SELECT id FROM t4 WHERE EXISTS (SELECT 1 FROM unnest([t4.i, t4.k2]) AS u(x) WHERE x > 50);
SELECT id FROM t4 WHERE i IN (SELECT * FROM range(10));
SELECT range FROM range(5) WHERE range IN (SELECT unnest([1, 3, 7]));
SELECT * FROM range(3) r, LATERAL (SELECT r.range + 1 AS y) s;
WITH x AS (SELECT * FROM range(4)) SELECT a.range AS p, b.range AS q FROM x a, x b WHERE a.range < b.range;
SELECT * FROM range(2) UNION ALL SELECT * FROM generate_series(5, 6);
SELECT * FROM range((SELECT 3));
SELECT * FROM generate_series((SELECT MIN(k) FROM t3), (SELECT MIN(k) FROM t3) + 3) AS g(v);
SELECT * FROM range((SELECT k FROM t3));

-- UNNEST in FROM
SELECT * FROM unnest([1, 2, 3]);
SELECT * FROM unnest([1, 2, 3]) u;
SELECT x FROM unnest([1, 2, 3]) AS u(x);
SELECT * FROM unnest(['a', NULL, 'c']) AS u(x);
SELECT * FROM unnest([[1, 2], [3]]) AS u(x);
SELECT * FROM unnest(NULL);
SELECT * FROM unnest(CASE WHEN false THEN [1] END) AS u(x);
SELECT * FROM unnest([1][2:1]) AS u(x);
SELECT * FROM unnest(range(4)) AS u(x);
SELECT unnest.unnest FROM unnest([1]);
SELECT * FROM unnest(5);
SELECT id, x FROM t4, unnest([t4.i, t4.k2]) AS u(x) WHERE t4.id < 30;
SELECT id, x FROM t4, LATERAL unnest([t4.i, t4.k2, NULL]) AS u(x) WHERE t4.id < 30 AND x IS NOT NULL;
SELECT l.k, x FROM (SELECT k, list(i) AS li FROM t4 GROUP BY k) l, unnest(l.li) AS u(x);
SELECT l.k, x FROM (SELECT k, list(i) FILTER (WHERE i > 100) AS li FROM t4 GROUP BY k) l, unnest(l.li) AS u(x);
SELECT l.k, COUNT(x) AS c FROM (SELECT k, list(i) AS li FROM t4 GROUP BY k) l JOIN unnest(l.li) AS u(x) ON x > 0 GROUP BY l.k;

-- UNNEST in the select list
SELECT unnest([1, 2, 3]) AS x;
SELECT unnest([1, 2, 3]) AS x, 5 AS c;
SELECT unnest([1, 2]) + 1 AS y;
SELECT unnest([1, 2, 3]) AS x, unnest(['a']) AS y;
SELECT unnest(['a', 'b']) AS x, unnest([1]) AS x2, 7 AS c;
-- ordered
SELECT unnest([1, 2]) AS a, unnest([3, 4, 5]) AS b ORDER BY b DESC;
SELECT unnest(NULL) AS x, 1 AS y;
SELECT 1 AS a, unnest([1][2:1]) AS x;
SELECT 1 AS a, unnest(CASE WHEN false THEN [1] END) AS x;
SELECT id, unnest(CASE WHEN id % 3 = 0 THEN [id] WHEN id % 3 = 1 THEN [id][2:1] END) AS x FROM t4;
SELECT unnest(range(3)) AS x;
SELECT unnest(generate_series(1, 3)) AS x;
SELECT unnest([[1, 2], [3]]) AS x;
SELECT id, unnest([i, k2]) AS x FROM t4 WHERE id < 30;
SELECT id, unnest([i, k2]) AS x, unnest([s]) AS y FROM t4 WHERE id < 30;
SELECT k, unnest(list(i)) AS x FROM t4 GROUP BY k;
SELECT unnest(list(DISTINCT k)) AS x FROM t3;
-- ordered
SELECT id, unnest(range(k)) AS x FROM t4 WHERE id < 20 ORDER BY id, x;
SELECT DISTINCT unnest([k, k2]) AS x FROM t4;
SELECT unnest([1, 2]) AS x, COUNT(*) AS c FROM range(3);
SELECT sum(unnest([1, 2])) AS s;
SELECT unnest(unnest([[1, 2]])) AS x;
SELECT unnest(5) AS x;
SELECT id FROM t4 WHERE unnest([i]) > 0;

-- scalar range / generate_series (lists)
SELECT range(3) AS a, generate_series(3) AS b, range(1, 5, 2) AS c, generate_series(5, 1, -2) AS d;
SELECT generate_series(1, 10, 0) AS a, generate_series(3, 1) AS b, range(-3) AS c, range(1, NULL) AS d;
SELECT range(9223372036854775806, 9223372036854775807) AS a, generate_series(9223372036854775806, 9223372036854775807) AS b;
SELECT id, range(k) AS r FROM t4 WHERE id < 30;
SELECT len(range(1000)) AS n;
SELECT range(1, 4) = [1, 2, 3] AS e;
SELECT range(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-03', INTERVAL 1 DAY) AS a;
SELECT generate_series(DATE '2024-01-01', DATE '2024-01-03', INTERVAL 1 DAY) AS a;
SELECT range(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-03', INTERVAL 0 DAY) AS a;
SELECT range(TIMESTAMP '2024-01-01', TIMESTAMP '2024-03-03', INTERVAL '1 month -1 day') AS a;
SELECT range(TIMESTAMP '2024-01-01', NULL, INTERVAL 1 DAY) AS a;
SELECT generate_series(TIMESTAMP '2024-01-31', TIMESTAMP '2024-01-01', INTERVAL '-10 days') AS a;
SELECT id, range(dt, dt + INTERVAL 3 DAY, INTERVAL 1 DAY) AS a FROM t4 WHERE id < 20;

-- UNNEST with windows, aggregates and LIMIT
SELECT unnest([1, 2]) AS x, COUNT(*) OVER () AS c FROM range(2);
SELECT k, unnest([MIN(i), MAX(i)]) AS x FROM t4 GROUP BY k HAVING COUNT(*) > 1;
-- ordered
SELECT id, unnest([i, k2]) AS x FROM t4 ORDER BY id, x NULLS FIRST LIMIT 7;
SELECT COUNT(*) AS c FROM (SELECT unnest(range(k)) AS x FROM t2) s;
SELECT * FROM unnest([1, 2]) a, unnest([3, 4]) b;
SELECT * FROM range(DATE '2024-01-01', DATE '2024-01-03', NULL);
SELECT * FROM range(NULL, DATE '2024-01-03', INTERVAL 1 DAY);
SELECT * FROM generate_series(DATE '2024-01-01', NULL, INTERVAL 1 DAY);
SELECT range(DATE '2024-01-01', DATE '2024-01-03', NULL) AS a;
SELECT t4.id, g FROM t4, generate_series(t4.dt, t4.dt + INTERVAL 2 DAY, INTERVAL 1 DAY) AS s(g) WHERE t4.id < 20;
SELECT t4.id, g FROM t4, range(t4.ts, t4.ts + INTERVAL 3 HOUR, INTERVAL 90 MINUTE) AS s(g) WHERE t4.id < 20;
