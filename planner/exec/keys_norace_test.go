//go:build !race

package exec

const ktRace = false
