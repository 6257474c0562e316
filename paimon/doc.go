// Package paimon reads and writes Apache Paimon table metadata exactly as
// Paimon Java 1.x does: schemas, snapshots, tags, manifests and index manifests.
package paimon
