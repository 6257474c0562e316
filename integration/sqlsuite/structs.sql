-- database: sqlgen
-- Nested values (DuckDB 1.5's syntax and functions) over the NULL-heavy
-- sqlgen tables (id, k, k2, i, b, d, f, s, dt, ts, flag): STRUCT literals,
-- struct_pack, field access, MAP constructors and lookups.

-- structs
SELECT {'a': 1, 'b': 'x'} AS s;
SELECT struct_pack(a := 1, b := 'x') AS s, struct_pack(id) AS t FROM t4 WHERE id < 3;
SELECT id, {'k': k, 's': s, 'd': d} AS st FROM t4;
SELECT {'a': 1, 'b': 'x'}['b'] AS v, struct_extract({'a': 1, 'b': 'x'}, 'a') AS w;
SELECT id, q.x.k AS k, q.x['s'] AS s, struct_extract(x, 'd') AS d, x.dt AS dt FROM (SELECT id, {'k': k, 's': s, 'd': d, 'dt': dt} AS x FROM t4) q;
SELECT t3.id, q.x.k AS k, q.x AS x FROM t3 LEFT JOIN (SELECT id, {'k': k, 'i': i} AS x FROM t4 WHERE id < 10) q ON q.id = t3.id;
SELECT id FROM (SELECT id, {'k': k} AS x FROM t4) q WHERE x.k > 2;
SELECT {'a': {'b': 1}}['a']['b'] AS v, {'a': {'b': 1}}.a.b AS w, {'a': 1, 'b': 'x'}.b AS x;
SELECT {'a': [1, 2], 'b': NULL} AS s;
SELECT struct_extract({'a': 1}, 'z') AS v;
SELECT {'a': 1, 'a': 2} AS s;

-- struct comparisons: NULL when a struct is NULL, else field by field
-- with NULL fields as values
SELECT id, {'k': k, 'i': i} = {'k': k2, 'i': i} AS eq, {'k': k, 'i': i} <> {'k': 1, 'i': NULL} AS ne, {'k': k, 'i': i} < {'k': 2, 'i': 5} AS lt, {'k': k, 'i': i} >= (k2, 3) AS ge, (k, i) <= {'a': 2, 'b': NULL} AS le FROM t4;
SELECT t3.id, q.x = {'k': 1, 'i': 2} AS eq, q.x > {'k': 1, 'i': NULL} AS gt, q.x IN ({'k': 1, 'i': 2}, {'k': 2, 'i': NULL}) AS x FROM t3 LEFT JOIN (SELECT id, {'k': k, 'i': i} AS x FROM t4 WHERE id < 30) q ON q.id = t3.id;
SELECT id FROM t4 WHERE {'k': k, 'n': {'i': i, 's': s}} > {'k': 1, 'n': {'i': 3, 's': 'b'}};
-- known: structs whose field names differ are refused here; DuckDB answers FALSE
SELECT {'a': 1} = {'b': 1} AS x;

-- maps
SELECT map(['a', 'b'], [1, 2]) AS m;
SELECT MAP {'a': 1, 'b': 2} AS m, MAP {'a': 1, 'b': 2}['b'] AS v, MAP {1: 'x', 2: 'y'}[2] AS w;
SELECT id, map([k], [s]) AS m FROM t4 WHERE k IS NOT NULL;
SELECT id, MAP {'k': k, 'i': i} AS m, map_keys(MAP {'k': k, 'i': i}) AS ks, map_values(MAP {'k': k, 'i': i}) AS vs, cardinality(MAP {'k': k, 'i': i}) AS c FROM t4;
SELECT id, m['x'] AS x, m['zz'] AS z, map_extract(m, 'x') AS e, element_at(m, 'b') AS f, map_extract_value(m, 'b') AS g FROM (SELECT id, map(['x', 'b'], [i, k]) AS m FROM t4) q;
SELECT id FROM (SELECT id, k, map(['x', 'b'], [i, k]) AS m FROM t4) q WHERE k > 1 AND m['x'] > 0;
SELECT id, m[s] AS v FROM (SELECT id, s, MAP {'a': 1, 'b': 2, 'abc': 3} AS m FROM t4) q;
SELECT cardinality(map([], [])) AS c, map_keys(map([], [])) AS k;
SELECT map(['a', 'a'], [1, 2]) AS m;
SELECT map([NULL], [1]) AS m;
SELECT map(['a'], [1, 2]) AS m;
SELECT id, map([s], [k]) AS m FROM t4;

-- STRUCT values built by the constructors sort, group and deduplicate (the nested-value keys).
-- ordered
SELECT {'k': k2, 's': s} AS x, id FROM t1 ORDER BY x, id;
-- ordered
SELECT {'k': k2, 's': s} AS x, id FROM t1 ORDER BY x DESC NULLS FIRST, id;
SELECT {'k': k2 % 3} AS x, COUNT(*) AS n FROM t2 GROUP BY x;
SELECT DISTINCT struct_pack(a := k2 % 2, b := s IS NULL) AS r FROM t3;
SELECT map([k2 % 2], [1]) AS m, COUNT(*) AS n FROM t1 WHERE k2 IS NOT NULL GROUP BY m;
