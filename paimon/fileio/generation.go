package fileio

import "sync"

// Write generations: a counter per store identity (StoreIdentifier) that
// every mutating call of an object-store FileIO of this process advances
// once the call has returned (succeeded or not: a failed PUT may still
// have been applied). Caches that reuse a check of mutable metadata for a
// while (paimon's freshness window) record the generation read before
// their check and drop the result once it moved, so a process always sees
// its own writes at once, whichever FileIO instance made them.

var (
	genMu sync.Mutex
	gens  = map[string]uint64{}
)

// maxGenerations bounds the identities tracked; when full the map starts
// over with every generation advanced (all recorded checks become stale).
const maxGenerations = 4096

// WriteGeneration returns the write generation of the store named identity.
func WriteGeneration(identity string) uint64 {
	genMu.Lock()
	defer genMu.Unlock()
	return gens[identity] + genBase
}

// genBase is added to every generation; it grows when the map is reset,
// so a generation read before a reset never equals one read after it.
var genBase uint64

// NoteWrite advances the write generation of the store named identity.
// FileIOs over object stores call it after each Overwrite, CreateIfAbsent,
// Rename and Delete; other FileIOs that name versions (and so take part in
// metadata caching) should do the same.
func NoteWrite(identity string) {
	genMu.Lock()
	defer genMu.Unlock()
	if _, ok := gens[identity]; !ok && len(gens) >= maxGenerations {
		var top uint64
		for _, g := range gens {
			top = max(top, g)
		}
		genBase += top + 1
		gens = map[string]uint64{}
	}
	gens[identity]++
}
