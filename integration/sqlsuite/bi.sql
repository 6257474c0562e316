-- database: sqlgen
-- Functions BI tools (Tableau, Superset, Metabase, DBeaver) emit, over the
-- sqlgen tables (id, k, k2, i, b, d DECIMAL(12,2), f DOUBLE, s, dt, ts, flag).

SELECT DATE_TRUNC('month', ts) AS m, COUNT(*) AS c FROM t1 GROUP BY 1;
SELECT CAST(DATE_TRUNC('week', dt) AS DATE) AS w, SUM(d) AS s FROM t1 GROUP BY 1;
SELECT id, DATE_TRUNC('quarter', ts) AS q, DATE_TRUNC('year', ts) AS y, DATE_TRUNC('day', ts) AS d FROM t4;
SELECT id, DATE_PART('isodow', dt) AS a, DATE_PART('doy', ts) AS b, DATE_PART('quarter', dt) AS c, DATE_PART('epoch', ts) AS e, DATE_PART('isoyear', dt) AS f FROM t4;
SELECT id, EXTRACT(WEEK FROM ts) AS w, EXTRACT(ISODOW FROM ts) AS i, EXTRACT(DOY FROM ts) AS d, EXTRACT(MICROSECONDS FROM ts) AS us, EXTRACT(YEAR FROM ts) * 100 + EXTRACT(MONTH FROM ts) AS ym FROM t4;
SELECT id, DATE_PART('minute', ts) AS mi, DATE_PART('second', ts) AS se, DATE_PART('hour', ts) AS h, DATE_PART('day', dt) AS dd FROM t4;
SELECT id, STRFTIME(ts, '%Y-%m') AS a, STRFTIME(dt, '%d.%m.%Y') AS b, STRFTIME(ts, '%H:%M') AS c, STRFTIME(ts, '%A %B %-d') AS e FROM t4;
SELECT id, STRFTIME(ts, '%I:%M %p') AS a, STRFTIME(dt, '%U %W %V %G %u %w') AS b, STRFTIME(ts, '%y%m%d') AS c FROM t4;
SELECT STRPTIME('2024-03-05 10:11:12', '%Y-%m-%d %H:%M:%S') AS a, STRPTIME('05/03/2024', '%d/%m/%Y') AS b;
SELECT MAKE_DATE(2024, 12, 31) AS a, MAKE_TIMESTAMP(2024, 1, 2, 3, 4, 5.5) AS b, CAST(MAKE_TIME(13, 14, 15.25) AS VARCHAR) AS c, MAKE_TIMESTAMP(2024, 2, 29, 23, 59, 1.000001) AS e, MAKE_TIMESTAMP(1700000000123456) AS g;
SELECT id, MAKE_TIMESTAMP(CAST(EXTRACT(YEAR FROM dt) AS BIGINT), CAST(EXTRACT(MONTH FROM dt) AS BIGINT), 1, id % 24, 30, id / 7.0) AS a FROM t4;
SELECT MAKE_TIMESTAMP(2024, 2, 30, 0, 0, 0) AS a;
SELECT MAKE_TIMESTAMP(2024, 1, 1, 24, 0, 0) AS a, MAKE_TIMESTAMP(2024, 12, 31, 24, 0, 0) AS b;
SELECT MAKE_TIMESTAMP(2024, 1, 1, 24, 0, 0.5) AS a;
SELECT MAKE_TIME(1, 60, 0) AS a;
SELECT id, MAKE_DATE(CAST(EXTRACT(YEAR FROM dt) AS BIGINT), 1, 1) AS a FROM t4;
SELECT id, GREATEST(dt, DATE '2024-02-01') AS a, LEAST(ts, TIMESTAMP '2024-02-01 00:00:00') AS b, GREATEST(d, f) AS c, LEAST(i, d) AS e FROM t4;
SELECT id, COALESCE(NULLIF(s, ''), 'n/a') AS a, NULLIF(COALESCE(i, 0), 0) AS b, COALESCE(d, f, 0) AS c FROM t4;
SELECT id, LPAD(CAST(i AS VARCHAR), 6, '0') AS a, RPAD(s, 6, '.') AS b, SPLIT_PART(STRFTIME(dt, '%Y-%m-%d'), '-', 2) AS c, SPLIT_PART(s, 'b', -1) AS e FROM t4;
SELECT id, STARTS_WITH(s, 'b') AS a, ENDS_WITH(s, 'c') AS b, SUFFIX(s, 'a') AS c, PREFIX(s, 'a') AS e FROM t4;
SELECT id, REGEXP_MATCHES(s, '[0-9]') AS a, REGEXP_EXTRACT(s, '^(.)', 1) AS b, REGEXP_EXTRACT(s, 'b.') AS c, REGEXP_FULL_MATCH(s, '[a-z]+') AS e FROM t4;
SELECT id, CONCAT_WS(', ', s, CAST(i AS VARCHAR), NULL) AS a, CONCAT(s, '-', id) AS b, s || '-' || id AS c FROM t4;
SELECT id, LEFT(s, -1) AS a, RIGHT(s, -1) AS b, REPEAT('ab', CAST(id % 3 AS INTEGER)) AS c, REVERSE(s) AS r, INITCAP(s || ' xy zw') AS ic FROM t4;
SELECT id, UPPER(LEFT(s, 1)) || LOWER(SUBSTRING(s, 2)) AS a, LENGTH(TRIM(s)) AS b, STRPOS(s, 'a') > 0 AS c FROM t4;
SELECT id, ROUND(f, -2) AS a, ROUND(i, -1) AS b, ROUND(d, 0) AS c, ROUND(CAST(i AS DOUBLE) / 3, 2) AS e FROM t4;
SELECT id, TRUNC(f, 1) AS a, TRUNC(d, 1) AS b, CEIL(f * 10) / 10 AS c, FLOOR(d / 10) * 10 AS e FROM t4;
SELECT id, i % 5 AS a, MOD(b, 7) AS b2, POWER(f, 2) AS c, LN(ABS(f) + 1) AS e, LOG10(ABS(d) + 1) AS g, LOG2(ABS(k) + 1) AS h, SIGN(i) AS s, SIGN(d) AS sd FROM t4;
SELECT id, CASE WHEN i > 10 THEN 'big' WHEN i > 0 THEN CAST(i AS VARCHAR) ELSE NULL END AS a, CASE WHEN flag THEN d ELSE 0 END AS b, CASE WHEN i IS NULL THEN 0 ELSE i END AS c FROM t4;
SELECT id, CASE WHEN i > 0 THEN dt ELSE ts END AS a FROM t4;
SELECT id, CAST(dt AS VARCHAR) || ' ' || CAST(i AS VARCHAR) AS a, CAST(CAST(dt AS VARCHAR) AS DATE) = dt AS b, CAST(CAST(ts AS VARCHAR) AS TIMESTAMP) = ts AS c FROM t4;
SELECT CAST('2024-03-05T10:11:12' AS TIMESTAMP) AS a, CAST('2024-03-05 10:11:12.345' AS TIMESTAMP) AS b, CAST('2024-03-05' AS TIMESTAMP) AS c;
-- known: timestamp strings with a UTC offset are not parsed (no TIMESTAMPTZ session time zone)
SELECT CAST('2024-03-05 10:11:12+02' AS TIMESTAMPTZ) AS a;
SELECT CAST(TIMESTAMP '2024-03-05 10:11:12' AS TIMESTAMPTZ) AS a;
SELECT id, ts + INTERVAL '1 day' AS a, ts - INTERVAL '1 hour 30 minutes' AS b, dt + INTERVAL '2 weeks' AS c, ts + INTERVAL '1 year 2 months' AS e FROM t4;
SELECT id, ts - ts AS a, CAST(ts AS DATE) - dt AS b, (ts - TIMESTAMP '2024-01-01 00:00:00') > INTERVAL '30 days' AS c FROM t4;
SELECT INTERVAL '1 month' = INTERVAL '30 days' AS a, INTERVAL '36 hours' > INTERVAL '1 day' AS b, INTERVAL '1 year' < INTERVAL '365 days' AS c, INTERVAL '-1 day' < INTERVAL '1 hour' AS d, INTERVAL '2 days' <> INTERVAL '48 hours' AS e, INTERVAL '1 month -1 day' >= INTERVAL '29 days' AS f;
SELECT id, ts - TIMESTAMP '2024-01-01 00:00:00' BETWEEN INTERVAL '10 days' AND INTERVAL '2 months' AS a, (ts - TIMESTAMP '2024-02-01 00:00:00') <> INTERVAL '0 days' AS b FROM t4;
SELECT id FROM t4 WHERE AGE(TIMESTAMP '2024-06-01 00:00:00', ts) > INTERVAL '3 months';
SELECT EXTRACT(EPOCH FROM INTERVAL '14 months 3 days 02:00:01.5') AS a, EXTRACT(EPOCH FROM INTERVAL '-1 year') AS b, DATE_PART('epoch', INTERVAL '90 minutes') AS c, INTERVAL '1:30' = INTERVAL '90 minutes' AS c2, EXTRACT(EPOCH FROM INTERVAL '-2 days -00:00:01.25') AS c3, EXTRACT(EPOCH FROM INTERVAL '25 months -40 days') AS d;
SELECT id, EXTRACT(EPOCH FROM (ts - TIMESTAMP '2024-01-01 00:00:00')) AS a, EXTRACT(DAY FROM (ts - TIMESTAMP '2024-01-01 00:00:00')) AS b FROM t4;
SELECT id, TO_TIMESTAMP(EXTRACT(EPOCH FROM ts)) AS a FROM t4;
SELECT id, EPOCH(ts) AS a, EPOCH(dt) AS b, EPOCH_MS(dt) AS c FROM t4;
SELECT id, YEAR(dt) AS y, MONTH(dt) AS m, DAY(dt) AS d, QUARTER(dt) AS q, WEEK(dt) AS w, HOUR(ts) AS h, MINUTE(ts) AS mi, SECOND(ts) AS s, ISODOW(dt) AS idw, DAYOFMONTH(dt) AS dm, YEARWEEK(dt) AS yw FROM t4;
SELECT id, DATE_ADD(dt, INTERVAL 2 DAY) AS a, DATE_SUB('day', dt, DATE '2024-12-31') AS b, DATEDIFF('quarter', dt, DATE '2025-01-01') AS c FROM t4;
SELECT id, DATE_TRUNC('month', dt) + INTERVAL 1 MONTH - INTERVAL 1 DAY AS eom, DATE_TRUNC('month', ts) - INTERVAL 1 MONTH AS prev FROM t4;
SELECT COUNT(*) FILTER (WHERE i > 0) AS p, SUM(CASE WHEN flag THEN 1 ELSE 0 END) AS t, AVG(CAST(flag AS INTEGER)) AS fr, COUNT(DISTINCT CASE WHEN i > 0 THEN k2 END) AS dk FROM t1;
SELECT k2, SUM(d) AS s, 100.0 * SUM(d) / SUM(SUM(d)) OVER () AS pct FROM t1 GROUP BY k2;
SELECT k2, COUNT(*) AS c, ROUND(AVG(f), 2) AS a, MIN(s) AS mn, MAX(s) AS mx FROM t1 GROUP BY k2 ORDER BY c DESC, k2 NULLS LAST LIMIT 5;
SELECT id, ASCII(s) AS a, LENGTH(s) - LENGTH(REPLACE(s, 'a', '')) AS cnt, LOWER(s) LIKE '%a%' AS l, s ILIKE '%B%' AS il FROM t4;
-- known: FORMAT and PRINTF are not implemented
SELECT id, FORMAT('{}-{}', s, i) AS a, PRINTF('%05d', i) AS b FROM t4;
SELECT id, TO_CHAR(dt, 'YYYY-MM-DD') AS a FROM t4;
SELECT id, CAST(i AS TEXT) AS a, CAST(f AS REAL) AS b, CAST(d AS NUMERIC(10,1)) AS c, i::VARCHAR AS e, CAST(i AS FLOAT) AS g, CAST(b AS INT8) AS h FROM t4;
SELECT id, CURRENT_TIMESTAMP >= ts AS a, NOW() > TIMESTAMP '2020-01-01 00:00:00' AS b, TODAY() >= dt AS c FROM t4;
-- known: the bitwise operators | << >> and XOR are not implemented
SELECT id, BIT_COUNT(CAST(k AS BIGINT)) AS a, k & 3 AS b, k | 8 AS c, k << 2 AS e, xor(k, 5) AS g FROM t4;
SELECT ISNAN('NaN'::DOUBLE) AS a, ISINF(-'inf'::DOUBLE) AS b, ISFINITE('inf'::DOUBLE) AS c, EVEN(-2.5) AS e, EVEN(0) AS e0, GCD(-12, 18) AS g, LCM(-4, 6) AS l, GCD(0, 0) AS g0, LCM(0, 5) AS l0;
SELECT LCM(9223372036854775807, 2) AS a;
SELECT id, ISNAN(f) AS a, ISINF(f) AS b, ISFINITE(f) AS c, EVEN(f) AS e, GCD(k, 12) AS g, LCM(k + 1, 4) AS h FROM t4;
