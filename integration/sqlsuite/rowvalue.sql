-- database: sqlgen
-- Row values (a, b, ...) over the NULL-heavy sqlgen tables (id, k, k2, i,
-- b, d, f, s, dt, ts, flag). DuckDB's semantics: a row is a STRUCT, so
-- comparisons treat NULL fields as values (NULL = NULL, NULL after every
-- value) and IN (subquery) is NULL, unmatched, when either side has a NULL
-- component.

-- row IN / NOT IN (subquery)
SELECT id FROM t3 WHERE (k, i) IN (SELECT k, i FROM t4);
SELECT id FROM t3 WHERE (k, i) NOT IN (SELECT k, i FROM t4 WHERE id < 30);
SELECT id FROM t3 WHERE (k, i) NOT IN (SELECT k, i FROM t4 WHERE i IS NOT NULL AND k IS NOT NULL);
SELECT id, (k, i) IN (SELECT k, i FROM t4 WHERE id < 40) AS x, (k, i) NOT IN (SELECT k, i FROM t4 WHERE id < 40) AS y FROM t3;
SELECT id, (k, s) IN (SELECT k2, s FROM t4 WHERE s IS NOT NULL AND k2 IS NOT NULL) AS x FROM t3;
SELECT id FROM t3 WHERE (k, 1) IN (SELECT k, 1 FROM t4 WHERE id < 20);
SELECT id FROM t3 WHERE (k, i) NOT IN (SELECT k, i FROM t4 WHERE id < 0);
SELECT id FROM t3 WHERE (k, i) IN (SELECT k, i FROM t4) OR id < 5;
SELECT id FROM t3 WHERE (k, i, s) IN (SELECT k, i, s FROM t2);
SELECT COUNT(*) AS c FROM t3 WHERE (k, i) IN (SELECT k, i, s FROM t4);
SELECT COUNT(*) AS c FROM t3 WHERE (k, i) IN (SELECT k FROM t4);

SELECT id FROM t4 WHERE (k, i) IN (VALUES (1, 2), (2, 3), (3, NULL));
SELECT id, (k, i) IN (VALUES (1, 2), (2, 3)) AS x, (k, i) NOT IN (VALUES (1, 2), (NULL, 3)) AS y FROM t4;
SELECT (1, 2) IN (VALUES (1, 2)) AS a, (1, NULL) IN (VALUES (1, 2)) AS b, (2, NULL) IN (VALUES (1, 2)) AS c, (2, NULL) IN ((1, 2)) AS d;

-- EXISTS with a row comparison as its correlation
SELECT id FROM t3 WHERE EXISTS (SELECT 1 FROM t4 WHERE (t4.k, t4.i) = (t3.k, t3.i));
SELECT id FROM t3 WHERE NOT EXISTS (SELECT 1 FROM t4 WHERE (t4.k, t4.i) = (t3.k, t3.i));
SELECT id, EXISTS (SELECT 1 FROM t4 WHERE (t4.k, t4.i) = (t3.k, t3.i) AND t4.id <> t3.id) AS e FROM t3;
SELECT id, (SELECT COUNT(*) FROM t4 WHERE (t4.k, t4.i) = (t3.k, t3.i)) AS c FROM t3;
SELECT id, (SELECT MAX(t4.id) FROM t4 WHERE (t4.k, t4.s) < (t3.k, t3.s)) AS m FROM t3;

-- row IN (list)
SELECT id FROM t4 WHERE (k, i) IN ((1, 2), (2, 3), (3, NULL), (NULL, NULL));
SELECT id, (k, i) IN ((1, 2), (2, 3), NULL) AS x, (k, i) NOT IN ((1, 2), (2, 3)) AS y FROM t4;
SELECT id FROM t4 WHERE (k, s) NOT IN ((1, 'a'), (2, 'b'));

-- row comparisons
SELECT id, (k, i) = (k2, i) AS eq, (k, i) <> (k2, 1) AS ne, (k, i) < (2, 5) AS lt, (k, i) <= (2, NULL) AS le, (k, i) > (k2, i) AS gt, (k, i) >= (1, 0) AS ge FROM t4;
SELECT id FROM t4 WHERE (k, i, s) > (1, 0, 'b');
SELECT id, (i, s) = NULL AS n FROM t4 WHERE id < 5;
SELECT (1, NULL) = (1, NULL) AS a, (1, NULL) < (1, 3) AS b, (NULL, 1) < (2, 1) AS c, (1, 2) <> (1, NULL) AS d, (1, 3) < (1, NULL) AS e, (2, 'a') >= (2, 'a') AS f;
SELECT COUNT(*) AS c FROM t4 WHERE (k, i) = (1, 2, 3);
SELECT id, (k, (i, s)) = (k2, (i, 'a')) AS eq, (k, (i, s)) < (2, (i, NULL)) AS lt, (k, (i, s)) IN ((1, (2, 'a')), (k2, (NULL, s))) AS x FROM t4;
