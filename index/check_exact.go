package index

import "fmt"

// docExact checks that the exact key of text document n is in the exact
// bucket or, from the exact watermark on, in the in-memory levels.
func (ck *checker) docExact(n uint32, r *record) error {
	pr := &ck.pr
	has, problem := ck.hasExact(r.exact, n)
	switch {
	case problem != "":
		if !pr.add("document %d (%q): exact: %s", n, r.id, problem) {
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
	bad := func(key []byte, what string) { pr.add("exact key %x: %s", key, what) }
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

// hasExact reports whether the exact bucket holds document n under hash
// h, or what is wrong with the group that would hold it. It validates
// each group once a Check and then binary-searches it.
func (ck *checker) hasExact(h uint64, n uint32) (bool, string) {
	c := ck.x.exact
	if !c.grouped() {
		return ck.exb.Get(exactKey(h, n)) != nil, ""
	}
	var kb [4]byte
	key := c.key(kb[:0], h)
	group := ck.exb.Get(key)
	if p := ck.groupProblem(bucketExact, c, key, group); p != "" {
		return false, fmt.Sprintf("group %x: %s", key, p)
	}
	_, found := c.search(group, hashEntry{c.bits(h), n})
	return found, ""
}

// groupProblem returns c.problem of the group of key in the bucket name
// (value v), computed once a Check.
func (ck *checker) groupProblem(name []byte, c hashGroups, key, v []byte) string {
	k := string(name) + "/" + string(key)
	if p, ok := ck.groups[k]; ok {
		return p
	}
	p := c.problem(v)
	if ck.groups == nil {
		ck.groups = make(map[string]string)
	}
	ck.groups[k] = p
	return p
}
