-- Statements in the shape Power BI's ODBC connector folds DirectQuery
-- visuals into: lower-case keywords, "_" and "rows" subquery aliases, the
-- "$Table" alias of the navigator preview, "a0" measure aliases and the
-- 1000001-row limit.

-- navigator preview
select "$Table"."n_nationkey" as "n_nationkey", "$Table"."n_name" as "n_name" from "tpch"."nation" "$Table" limit 1000;

-- folded aggregate of a table visual
select "_"."o_orderstatus", "_"."a0"
from (select "rows"."o_orderstatus" as "o_orderstatus", sum("rows"."o_totalprice") as "a0"
      from (select "_"."o_orderstatus" as "o_orderstatus", "_"."o_totalprice" as "o_totalprice" from "tpch"."orders" "_") "rows"
      group by "o_orderstatus") "_"
where not "_"."a0" is null
limit 1000001;

-- slicer values
select "o_orderpriority" from "tpch"."orders" group by "o_orderpriority" limit 101;
