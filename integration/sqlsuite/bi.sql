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
SELECT id, FORMAT('{}-{}', s, i) AS a, PRINTF('%05d', i) AS b FROM t4;
SELECT id, FORMAT('{:>6}|{:<4}|{:.2f}|{:^7}', s, k2, f, i) AS a, PRINTF('%-6s|%3d|%8.3f|%x|%+d', s, k2, d, b, i) AS b, FORMAT('{} {}', dt, ts) AS c, FORMAT('{}', f) AS e, FORMAT('{}', d) AS g, PRINTF('%s=%.1e', s, f) AS h FROM t4;
SELECT FORMAT('{1}{0}{{x}}', 'a', 'b') AS a, PRINTF('%%%s%c', 'z', 66) AS b, FORMAT('{:08.3f}', -2.5) AS c, FORMAT('{:x}', -255) AS d, FORMAT(NULL, 1) AS e, PRINTF('%s', NULL) AS g;
SELECT FORMAT('{:s}', 5) AS a;
SELECT PRINTF('%d', 1.5) AS a;
SELECT id, TO_CHAR(dt, 'YYYY-MM-DD') AS a FROM t4;
SELECT id, CAST(i AS TEXT) AS a, CAST(f AS REAL) AS b, CAST(d AS NUMERIC(10,1)) AS c, i::VARCHAR AS e, CAST(i AS FLOAT) AS g, CAST(b AS INT8) AS h FROM t4;
SELECT id, CURRENT_TIMESTAMP >= ts AS a, NOW() > TIMESTAMP '2020-01-01 00:00:00' AS b, TODAY() >= dt AS c FROM t4;
SELECT id, BIT_COUNT(CAST(k AS BIGINT)) AS a, k & 3 AS b, k | 8 AS c, k << 2 AS e, xor(k, 5) AS g FROM t4;
SELECT id, k2 & 6 AS a, i | 1 AS b, k2 << 3 AS c, i >> 2 AS d, ~i AS e, BIT_COUNT(i) AS f, xor(i, k2) AS g, (i - 60) >> 40 AS h, i & k2 | 1 AS p, ~i + 1 AS q FROM t4;
SELECT 1 | 2 & 3 AS a, 6 & 3 << 1 AS b, ~1 + 1 AS c, ~ 1 | 2 AS d, 2 + 3 & 6 AS e, 12 >> 1 >> 1 << 3 AS f, 5 & NULL AS g, -123 >> 31 AS h, -123 >> 32 AS j, 'a' || 'b' || 'c' AS k;
SELECT TYPEOF(k2 & 1) AS a, TYPEOF(k & 1) AS b, TYPEOF(BIT_COUNT(k2)) AS c, TYPEOF(~k2) AS d, TYPEOF(1 | 2) AS e FROM t4 WHERE id = 1;
SELECT k2 << 28 AS a FROM t4;
SELECT 1 << 40 AS a;
SELECT i & 1.5 AS a FROM t4;
SELECT ISNAN('NaN'::DOUBLE) AS a, ISINF(-'inf'::DOUBLE) AS b, ISFINITE('inf'::DOUBLE) AS c, EVEN(-2.5) AS e, EVEN(0) AS e0, GCD(-12, 18) AS g, LCM(-4, 6) AS l, GCD(0, 0) AS g0, LCM(0, 5) AS l0;
SELECT LCM(9223372036854775807, 2) AS a;
SELECT id, ISNAN(f) AS a, ISINF(f) AS b, ISFINITE(f) AS c, EVEN(f) AS e, GCD(k, 12) AS g, LCM(k + 1, 4) AS h FROM t4;

-- second batch: Metabase/Superset/Tableau idioms
SELECT CAST(EXTRACT(DOW FROM dt) AS INTEGER) + 1 AS dow, COUNT(*) AS c FROM t1 GROUP BY 1;
SELECT (CAST(DATE_TRUNC('week', (dt + INTERVAL '1 day')) AS DATE) - INTERVAL '1 day') AS w, COUNT(*) AS c FROM t1 GROUP BY 1;
SELECT CAST(EXTRACT(YEAR FROM ts) AS INTEGER) AS y, CAST(EXTRACT(QUARTER FROM ts) AS INTEGER) AS q, SUM(f) AS s FROM t1 GROUP BY 1, 2;
SELECT id, CAST(CAST(ts AS TIME) AS VARCHAR) AS tv, CAST(ts AS TIME) < TIME '12:00:00' AS am FROM t4;
-- known: INTERVAL * DOUBLE is not implemented
SELECT id, DATE_TRUNC('minute', ts) + INTERVAL '15 minutes' * FLOOR(EXTRACT(MINUTE FROM ts) / 15) AS q FROM t4;
SELECT id, TO_TIMESTAMP(EPOCH(ts)) = ts AS a FROM t4;
SELECT id, CAST(ts AS DATE) + 1 AS a, dt - DATE '2024-01-01' AS b, dt + CAST(id AS INTEGER) AS c FROM t4;
SELECT id, DATEDIFF('day', dt, CAST(ts AS DATE)) AS a, DATE_DIFF('minute', ts, CAST(dt AS TIMESTAMP)) AS b FROM t4;
SELECT id, COALESCE(CAST(i AS VARCHAR), '(null)') AS a, CAST(COALESCE(d, 0) AS DOUBLE) AS b, COALESCE(s, CAST(id AS VARCHAR)) AS c FROM t4;
SELECT id, CAST(d AS VARCHAR) AS a, CAST(f AS DECIMAL(18,4)) AS b, CAST(ROUND(f, 2) AS VARCHAR) AS c FROM t4 WHERE f IS NOT NULL AND ABS(f) < 1e6;
SELECT id, CAST(i AS DOUBLE) / NULLIF(CAST(k2 AS DOUBLE), 0) AS r, i * 1.0 / NULLIF(k2, 0) AS r2 FROM t4;
SELECT id, SUBSTR(s, 1, 3) AS a, SUBSTRING(s FROM 2 FOR 2) AS b, POSITION('a' IN s) AS c, LENGTH(s) AS l, CHAR_LENGTH(s) AS cl FROM t4;
SELECT id, REGEXP_REPLACE(s, '\s+', '_', 'g') AS a, REGEXP_EXTRACT(s, '[a-z]+', 0) AS b, REGEXP_MATCHES(s, 'A', 'i') AS c FROM t4;
SELECT id, LOWER(TRIM(s)) = 'ab' AS a, s IN ('a', 'b', 'ab') AS b, s NOT IN ('x') AS c FROM t4;
SELECT k2, COUNT(*) AS c, SUM(CASE WHEN s IS NULL THEN 1 ELSE 0 END) AS nulls, AVG(LENGTH(s)) AS al FROM t1 GROUP BY k2 HAVING COUNT(*) > 1;
SELECT id, NTILE(4) OVER (ORDER BY id) AS q, ROW_NUMBER() OVER (PARTITION BY k2 ORDER BY f DESC NULLS LAST, id) AS rn FROM t4;
SELECT id, SUM(f) OVER (ORDER BY dt, id ROWS UNBOUNDED PRECEDING) AS cum, AVG(f) OVER (ORDER BY id ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS ma7 FROM t4;
SELECT id, f - LAG(f) OVER (ORDER BY id) AS diff, f / NULLIF(LAG(f, 1) OVER (ORDER BY id), 0) - 1 AS growth FROM t4;
SELECT MIN(dt) AS a, MAX(dt) AS b, MAX(dt) - MIN(dt) AS span, MAX(ts) - MIN(ts) AS tspan FROM t1;
SELECT COUNT(*) AS c, COUNT(DISTINCT dt) AS d FROM t1 WHERE dt >= DATE '2024-01-01' AND dt < DATE '2024-01-01' + INTERVAL '3 months';
SELECT id FROM t4 WHERE ts >= CURRENT_DATE - INTERVAL '100 years' AND ts < NOW();
SELECT id FROM t4 WHERE CAST(ts AS DATE) BETWEEN '2024-01-01' AND '2024-03-31';
SELECT id FROM t4 WHERE dt >= '2024-02-01' AND s LIKE '%b%';
SELECT id, CASE WHEN f < 0 THEN 'neg' WHEN f < 100 THEN 'small' ELSE 'big' END AS bucket, WIDTH_BUCKET(f, 0, 1000, 10) AS wb FROM t4;
SELECT id, FLOOR(f / 100) * 100 AS bin, CAST(FLOOR(d) AS INTEGER) AS fi, CEIL(d / 10.0) AS c FROM t4;
SELECT id, STDDEV(f) OVER (PARTITION BY k2) AS sd, PERCENT_RANK() OVER (ORDER BY f) AS pr FROM t4;
SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY f) AS p50, PERCENTILE_DISC(0.9) WITHIN GROUP (ORDER BY i) AS p90 FROM t1;
SELECT k2, PERCENTILE_CONT(0.25) WITHIN GROUP (ORDER BY d) AS q1, PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY s) AS m FROM t1 GROUP BY k2;
SELECT k2 % 3 AS g, MODE() WITHIN GROUP (ORDER BY k % 5) AS mo, MODE(k % 5) AS m2 FROM t1 GROUP BY 1;
SELECT k2 % 3 AS g, PERCENTILE_DISC(0.9) WITHIN GROUP (ORDER BY dt) AS a, PERCENTILE_DISC(0.1) WITHIN GROUP (ORDER BY ts) AS b, PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY f) FILTER (WHERE i > 0) AS c FROM t1 GROUP BY 1;
-- known: a descending WITHIN GROUP order is refused
SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY f DESC) AS a FROM t1;
SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY f, i) AS a FROM t1;
SELECT PERCENTILE_CONT(0.5 ORDER BY f) AS a FROM t1;
-- known: the front end does not read ORDER BY inside MODE(...) (MODE is a sqlparser keyword)
SELECT k2 % 3 AS g, MODE(k ORDER BY id) AS m FROM t1 GROUP BY 1;
SELECT id, LEAST(COALESCE(i, 0), 10) AS a, GREATEST(COALESCE(f, 0), 0) AS b, ABS(COALESCE(i, 0) - 5) AS c FROM t4;
SELECT id, CAST(flag AS VARCHAR) AS a, CASE WHEN flag THEN 'Y' ELSE 'N' END AS b, CAST(CASE WHEN flag THEN 1 ELSE 0 END AS BOOLEAN) AS c FROM t4;
SELECT id, LENGTH(CAST(id AS VARCHAR)) AS a, LPAD(CAST(id AS VARCHAR), 4, '0') AS b, 'ID-' || LPAD(id::VARCHAR, 5, '0') AS c FROM t4;
SELECT id, EXTRACT(YEAR FROM dt) || '-Q' || EXTRACT(QUARTER FROM dt) AS yq, STRFTIME(dt, '%Y') || '-W' || LPAD(CAST(WEEK(dt) AS VARCHAR), 2, '0') AS yw FROM t4;
SELECT id, DATE_TRUNC('month', dt)::DATE AS m, DATE_TRUNC('year', dt)::DATE AS y FROM t4;
SELECT id, TIMESTAMP '2024-01-01 00:00:00' + id * INTERVAL '1 hour' AS a, dt + id * INTERVAL '1 day' AS b FROM t4;
SELECT id, INTERVAL '1 day' * 3 AS a, -INTERVAL '1 day' AS c FROM t4 WHERE id < 3;
-- known: INTERVAL / number is not implemented (DuckDB carries fractional months/days into the smaller fields and rounds)
SELECT INTERVAL '3 months 5 days 00:00:00.000007' / 2 AS a, INTERVAL '-7 days -1 hour' / 3 AS b, INTERVAL '1 year' / -5 AS c, INTERVAL '1 microsecond' / 2 AS d;
-- known: INTERVAL * DOUBLE is not implemented
SELECT INTERVAL '1 day' * 1.5 AS a;

-- LATERAL with RIGHT/FULL joins: DuckDB refuses most of these; both must error or agree
SELECT a.id, x.c FROM t4 a RIGHT JOIN LATERAL (SELECT COUNT(*) AS c FROM t3 b WHERE b.k2 = a.k2) x ON true;
SELECT a.id, x.c FROM t4 a FULL JOIN LATERAL (SELECT COUNT(*) AS c FROM t3 b WHERE b.k2 = a.k2) x ON true;
SELECT a.id, x.id AS bid FROM t4 a RIGHT JOIN LATERAL (SELECT b.id FROM t3 b WHERE b.id = a.id) x ON x.id = a.id;
SELECT a.id, x.v FROM t4 a RIGHT JOIN LATERAL (SELECT 1 AS v) x ON a.id < 3;
SELECT a.id, x.m FROM t4 a FULL JOIN LATERAL (SELECT MAX(i) AS m, k2 FROM t3 GROUP BY k2) x ON x.k2 = a.k2;
SELECT q.id FROM (SELECT a.id FROM t4 a RIGHT JOIN LATERAL (SELECT 1 AS v) x ON a.id < 3) q;
