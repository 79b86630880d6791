package index

import bolt "go.etcd.io/bbolt"

// MergeState reports whether a merge of the levels of x is under way, for
// tests.
func MergeState(x *Index) (merging bool) {
	x.view(func(tx *bolt.Tx) error {
		merging = x.readMeta(tx).merging
		return nil
	})
	return merging
}

// The write and query paths under Add and Query, for the tests that check
// them against the public ones.

// ProbedDoc is a document analyzed beforehand, for AddProbed.
type ProbedDoc struct {
	ID    string
	Probe Probe
}

// QueryProbe answers from the file, after every pending operation is
// committed to it.
func (x *Index) QueryProbe(p *Probe, opts *QueryOptions) ([]Match, error) {
	if err := x.flush(); err != nil {
		return nil, err
	}
	return x.queryProbe(p, opts)
}

// AddProbed commits docs to the file at once, after every pending
// operation.
func (x *Index) AddProbed(docs ...ProbedDoc) error {
	if err := x.flush(); err != nil {
		return err
	}
	pds := make([]probedDoc, len(docs))
	for i, d := range docs {
		pds[i] = probedDoc{ID: d.ID, probe: d.Probe}
	}
	err := x.addProbed(pds...)
	if x.pend != nil {
		x.pend.rebase(int(x.count.Load()))
	}
	return err
}

// directLogInternal makes Add and Delete commit to the file at once, for
// the tests of the file's levels, merges and copies.
var directLogInternal = &LogOptions{Direct: true}

// The probes and matcher under Query and the pending level, for the tests
// that check them against the public queries.

type (
	Probe   = docProbe
	Matcher = matcher
)

func (x *Index) Probe(text []byte) (Probe, error)             { return x.probeText(text) }
func (x *Index) ProbeFingerprint(fp uint64) Probe             { return x.probeFingerprint(fp) }
func (x *Index) ProbeID(id string) (Probe, error)             { return x.probeID(id) }
func (x *Index) Matcher(opts *QueryOptions) (*Matcher, error) { return x.newMatcher(opts) }

// SetPairWorkers makes Pairs and Clusters of x run on n workers (1: in
// the caller's goroutine alone), with chunks of two pairs, one chunk
// buffered a unit and three band keys a unit when small, so that the
// workers wait for the caller's goroutine and it for them, and a table
// cut into a part for every 16 documents (whatever n, so that every n
// cuts it alike). It returns the counts of the workers started and of
// those running. For tests, between calls of x's methods.
func SetPairWorkers(x *Index, n int, small bool) (started, running func() int64) {
	st := &pairStats{}
	x.pairTune = pairTuning{workers: n, stats: st, tableDocs: 16}
	if small {
		x.pairTune.chunk, x.pairTune.keys, x.pairTune.budget = 2, 3, 1
	}
	return st.started.Load, st.running.Load
}

// StoredRecords returns the records that the value v of key k of the docs
// bucket holds: v itself, or the records of a group (see docgroups.go).
func StoredRecords(k, v []byte) [][]byte {
	if !isDocGroupKey(k) {
		return [][]byte{v}
	}
	g, what := openDocGroup(k, v)
	if what != "" {
		return nil
	}
	var rs [][]byte
	for i := range int(g.last - g.first + 1) {
		if r, _ := g.slot(i); r != nil {
			rs = append(rs, r)
		}
	}
	return rs
}
