package index

// docExact checks that the exact key of text document n is in the exact
// bucket or, from the exact watermark on, in the in-memory levels.
func (ck *checker) docExact(n uint32, r *record) error {
	pr := &ck.pr
	has, err := ck.x.hasExact(ck.exb, r.exact, n)
	switch {
	case err != nil:
		if !pr.add("document %d (%q): exact: %v", n, r.id, err) {
			return errStop
		}
	case has:
		ck.ownExact++
	case n < ck.ew:
		if !pr.add("document %d (%q): missing from exact", n, r.id) {
			return errStop
		}
	case !ck.inLevels(ck.elv, ck.edc, exactBand, r.exact, n):
		if !pr.add("document %d (%q): exact key neither in the bucket nor in the in-memory levels", n, r.id) {
			return errStop
		}
	}
	return nil
}

// exact checks the exact hashes: every key belongs to a text document
// with that hash (each text document's own key was looked up by docExact).
func (ck *checker) exact() {
	pr := &ck.pr
	exacts := 0
	bad := func(key []byte, err error) { pr.add("exact key %x: %v", key, err) }
	ck.x.eachExact(ck.exb, bad, func(uint64, uint32) error {
		exacts++
		if len(pr.list) >= maxProblems {
			return errStop
		}
		return nil
	})
	if exacts != ck.ownExact {
		pr.add("%d exact keys for %d documents with text whose key is there", exacts, ck.ownExact)
	}
}
