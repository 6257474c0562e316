//go:build race

package exec

// sync.Pool drops items at random under the race detector.
const ktRace = true
