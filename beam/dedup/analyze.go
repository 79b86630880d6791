package dedup

import (
	"context"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/input"
)

// IDSeq is a document's ID and place in the input order.
type IDSeq struct {
	Seq uint64
	ID  string
}

// Member is a document of a group of exact copies: its place, its ID and
// the size of its text (for --keep longest and shortest).
type Member struct {
	Seq  uint64
	ID   string
	Size int64
}

// Info is what the pipeline knows of a document once analysed: the
// fingerprint, the canonical-text hash, and with the MinHash layer the
// signature, the short set and the band hashes (index.Fingerprinter's
// Analyze and Short). Empty says the text has no units: it matches
// nothing.
type Info struct {
	Member
	FP, Exact         uint64
	Sig, Short, Bands []uint64
	Empty             bool
}

// uniqueKeyFn keys a document's ID by input.UniqueKey, for renaming the
// repeated IDs group by group.
func uniqueKeyFn(d Doc) (string, IDSeq) {
	return input.UniqueKey(d.ID), IDSeq{Seq: d.Seq, ID: d.ID}
}

// renameFn renames the repeated IDs of one group (input.UniqueKey) as
// simidx dedup does, in input order (input.Unique), and emits each new
// ID. Memory: the IDs of the group.
func renameFn(ctx context.Context, _ string, ids func(*IDSeq) bool, emit func(IDSeq)) {
	var all []IDSeq
	var v IDSeq
	for ids(&v) {
		all = append(all, v)
	}
	if len(all) < 2 {
		return
	}
	slices.SortFunc(all, func(a, b IDSeq) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
	var u input.Unique
	for _, d := range all {
		if id, renamed := u.ID(d.ID); renamed {
			renamed2.Inc(ctx, 1)
			emit(IDSeq{Seq: d.Seq, ID: id})
		}
	}
}

// analyzeFn applies the renames (a side input, few in practice: held in
// memory) and analyses each document with the rule's Fingerprinter.
type analyzeFn struct {
	Rule Rule

	renames map[uint64]string
	loaded  bool
	fp      fpState
}

func (fn *analyzeFn) ProcessElement(ctx context.Context, d Doc, renames func(*IDSeq) bool, emit func(Info)) error {
	if !fn.loaded {
		fn.renames = map[uint64]string{}
		var r IDSeq
		for renames(&r) {
			fn.renames[r.Seq] = r.ID
		}
		fn.loaded = true
	}
	if err := fn.fp.init(&fn.Rule); err != nil {
		return err
	}
	id := d.ID
	if n, ok := fn.renames[d.Seq]; ok {
		id = n
	}
	fp, exact, sig, short, bands := fn.fp.f.AnalyzeText(d.Text)
	info := Info{Member: Member{Seq: d.Seq, ID: id, Size: int64(len(d.Text))}, FP: fp, Exact: exact,
		Sig: slices.Clone(sig), Short: slices.Clone(short), Bands: slices.Clone(bands)}
	info.Empty = info.Exact == fn.fp.empty
	docsRead.Inc(ctx, 1)
	emit(info)
	return nil
}

// Counters of the pipeline.
var (
	docsRead   = beam.NewCounter("simidx", "documents")
	skipped    = beam.NewCounter("simidx", "skipped")
	renamed2   = beam.NewCounter("simidx", "renamed")
	unconverge = beam.NewCounter("simidx", "components_unconverged")
	hotKeys    = beam.NewCounter("simidx", "hot_keys")
	candidates = beam.NewCounter("simidx", "candidates")
	repPairs   = beam.NewCounter("simidx", "pairs_distinct_texts")
)

// fpState is a DoFn's Fingerprinter, made on first use.
type fpState struct {
	f     *index.Fingerprinter
	empty uint64 // the canonical-text hash of a text without units
}

func (s *fpState) init(r *Rule) error {
	if s.f != nil {
		return nil
	}
	f, err := r.fingerprinter()
	if err != nil {
		return err
	}
	s.f, s.empty = f, f.TextHash(nil)
	return nil
}
