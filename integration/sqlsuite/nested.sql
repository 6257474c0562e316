-- database: sqlgen

-- nested values as keys: ORDER BY, GROUP BY, DISTINCT, PARTITION BY, UNION, joins (lists compare as DuckDB: element-wise, prefix first, NULL elements last in either direction)
-- ordered
SELECT id FROM t4 ORDER BY [id] LIMIT 3;
-- ordered
SELECT id, [k2, i] AS l FROM t4 ORDER BY l, id;
-- ordered
SELECT id, [k2, i] AS l FROM t4 ORDER BY l DESC, id;
-- ordered
SELECT id, [k2, i] AS l FROM t4 ORDER BY l DESC NULLS FIRST, id LIMIT 30;
-- ordered
SELECT id, [s, NULL] AS l FROM t4 ORDER BY l NULLS FIRST, id;
-- ordered
SELECT k2, LIST(i ORDER BY id) AS l FROM t4 GROUP BY k2 ORDER BY l, k2;
-- ordered
SELECT k2, LIST(s ORDER BY id) AS l FROM t3 GROUP BY k2 ORDER BY l DESC, k2;
-- ordered
SELECT id, [[i], [k2, NULL]] AS l FROM t4 ORDER BY l, id;
-- ordered
SELECT id, [f, f * 2] AS l FROM t3 ORDER BY l, id;
-- ordered
SELECT id, [d] AS l, [dt] AS m FROM t3 ORDER BY l DESC, m, id LIMIT 40;
SELECT [k2 % 3, i % 2] AS l, COUNT(*) AS c FROM t1 GROUP BY l;
SELECT [s] AS l, COUNT(*) AS c, SUM(i) AS si FROM t2 GROUP BY 1;
SELECT [NULL, k2 % 2] AS l, [flag] AS fl, COUNT(*) AS c FROM t1 GROUP BY l, fl;
SELECT DISTINCT [k2 % 4, NULL] AS l FROM t1;
SELECT DISTINCT [dt, NULL], [f] FROM t3;
SELECT l, COUNT(*) AS c FROM (SELECT CASE WHEN k2 IS NULL THEN NULL WHEN k2 % 3 = 0 THEN [CAST(NULL AS BIGINT)] ELSE [CAST(k2 % 2 AS BIGINT)] END AS l FROM t1) AS v GROUP BY l;
SELECT k2 % 5 AS g, COUNT(DISTINCT [i % 3]) AS n FROM t1 GROUP BY g;
SELECT id, ROW_NUMBER() OVER (PARTITION BY p ORDER BY id) AS rn, RANK() OVER (ORDER BY l DESC) AS r, DENSE_RANK() OVER (ORDER BY l NULLS FIRST) AS dr FROM (SELECT id, [k2 % 3, i % 2] AS p, [k2, i] AS l FROM t4) AS v;
SELECT id, SUM(i) OVER (PARTITION BY [k2 % 2, i % 3] ORDER BY [id] ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS w FROM t4;
SELECT [k2 % 3] AS l FROM t3 UNION SELECT [k2 % 4] FROM t4;
SELECT [k2 % 3, NULL] AS l FROM t3 INTERSECT SELECT [k2 % 4, NULL] FROM t4;
SELECT [k2 % 3] AS l FROM t3 EXCEPT SELECT [k2 % 2] FROM t4;
SELECT a.id, b.id FROM t4 a JOIN t3 b ON [a.k2, a.i] = [b.k2, b.i] WHERE a.id < 60;
SELECT a.id, b.id FROM t4 a JOIN t4 b ON [a.k2 % 5, NULL] = [b.k2 % 5, NULL] WHERE a.id < 10 AND b.id < 30;
SELECT a.id, b.id FROM t4 a LEFT JOIN t3 b ON [a.s] = [b.s] WHERE a.id < 40;
SELECT COUNT(*) AS c FROM t4 a JOIN t4 b ON [a.k2] = [b.k2];
SELECT id FROM t4 WHERE [k2] IN (SELECT [k2 + 1] FROM t3 WHERE id < 50);
-- ordered
SELECT [k2 % 3] AS l, COUNT(*) AS c FROM t1 GROUP BY l ORDER BY l DESC;
-- ordered
SELECT id, [i, k2, NULL][1:k2 % 4] AS l FROM t4 ORDER BY l, id;
-- ordered
SELECT id, [i, k2, NULL][1:k2 % 4] AS l FROM t4 ORDER BY l DESC NULLS FIRST, id;
-- ordered
SELECT STRING_SPLIT(s, 'a') AS l, COUNT(*) AS c FROM t1 GROUP BY l ORDER BY l;
SELECT DISTINCT [i, k2, NULL][1:k2 % 4] AS l FROM t1;
-- ordered
SELECT id, [f] AS l FROM t2 WHERE f = 0 OR f IS NULL OR id < 20 ORDER BY l DESC, id;
SELECT id, MIN([k2, i]) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS mn, MAX([s]) OVER (PARTITION BY k2 % 3 ORDER BY id) AS mx FROM t4;
SELECT k2 % 4 AS g, ARG_MAX(id, [k2, i]) AS a, ARG_MIN(id, [s, NULL]) AS b, LIST(id ORDER BY ik DESC, id) AS l, FIRST(id ORDER BY ls NULLS FIRST, id) AS f FROM (SELECT *, [i, k2] AS ik, [s] AS ls FROM t4) AS v GROUP BY g;
SELECT COUNT(DISTINCT [k2, i]) AS a, COUNT(DISTINCT [s]) AS b FROM t1;
SELECT k2 % 3 AS g, MIN([i, k2]) AS a, MAX([s, NULL]) AS b, MIN(STRING_SPLIT(s, 'a')) AS c, MAX([i, k2, NULL][1:k2 % 4]) AS d FROM t1 GROUP BY g;
SELECT MIN([dt]) AS a, MAX([f, NULL]) AS b, MIN([[i], [k2]]) AS c FROM t2;
SELECT id, RANK() OVER (ORDER BY [k2, i] DESC) AS r, ROW_NUMBER() OVER (PARTITION BY [k2 % 3, i % 2] ORDER BY [id, 0]) AS rn FROM t4;
SELECT k2 % 4 AS g, LIST(id ORDER BY [i, k2] DESC, id) AS l, FIRST(id ORDER BY [s] NULLS FIRST, id) AS f FROM t4 GROUP BY g;
-- ordered
SELECT id FROM t4 ORDER BY [k2 % 3, i] DESC, id LIMIT 20;
