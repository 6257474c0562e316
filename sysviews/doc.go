// Package sysviews serves Paimon's system tables as catalog.Tables: the
// table-level views addressed with a suffix (orders$snapshots,
// orders$branch_b$files, orders$ro, ...) and the global tables of the sys
// database (sys.tables, sys.partitions, sys.all_table_options,
// sys.catalog_options). Column names and types follow Paimon Java's system
// tables (see docs/design/sysviews.md).
package sysviews
