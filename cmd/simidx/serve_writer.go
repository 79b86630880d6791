package main

import (
	"cmp"
	"errors"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// pendingDoc is a document on its way to the index.
type pendingDoc struct {
	id   string
	text []byte
	// analysed says fp, sig and bands hold the document's analysis.
	analysed bool
	fp       uint64
	sig      []uint64
	bands    []uint64
}

// addRequest is one add request handed to the writer: its documents are
// committed in one group with those of other requests.
type addRequest struct {
	docs     []pendingDoc
	ifUnique bool
	opts     index.QueryOptions // for ifUnique
	maxDist  int                // resolved opts.MaxDistance
	done     chan addResult
}

// addResult is what the writer did with an addRequest.
type addResult struct {
	added      int
	duplicates []duplicate
	err        error
}

// duplicate is a document refused by if_unique, with its near duplicates.
type duplicate struct {
	ID      string        `json:"id"`
	Matches []matchRecord `json:"matches"`
}

// writer commits add requests in groups: one goroutine takes every request
// queued (up to groupDocs documents, waiting at most groupDelay for more),
// checks the if_unique ones against the index and the group, and adds the
// accepted documents in one index.Add. Each request is answered after the
// commit of its group.
type writer struct {
	s    *server
	ch   chan *addRequest
	done chan struct{}

	mu     sync.RWMutex // held to send on ch; held exclusively to close it
	closed bool
	fpr    *index.Fingerprinter // analyses plain adds for the if_unique checks
}

var errShuttingDown = errors.New("the server is shutting down")

func newWriter(s *server) (*writer, error) {
	st := s.x.Settings()
	fpr, err := index.NewFingerprinter(&st)
	if err != nil {
		return nil, err
	}
	w := &writer{s: s, ch: make(chan *addRequest, 256), done: make(chan struct{}), fpr: fpr}
	go w.loop()
	return w, nil
}

// submit queues r and waits for its result.
func (w *writer) submit(r *addRequest) addResult {
	r.done = make(chan addResult, 1)
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return addResult{err: errShuttingDown}
	}
	w.ch <- r
	w.mu.RUnlock()
	return <-r.done
}

// close commits the requests queued and stops the writer.
func (w *writer) close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
	w.mu.Unlock()
	<-w.done
}

func (w *writer) loop() {
	defer close(w.done)
	lim := w.s.lim
	var timer *time.Timer
	for {
		r, ok := <-w.ch
		if !ok {
			return
		}
		group := []*addRequest{r}
		n := len(r.docs)
		var deadline <-chan time.Time
		if lim.groupDelay > 0 {
			if timer == nil {
				timer = time.NewTimer(lim.groupDelay)
			} else {
				timer.Reset(lim.groupDelay)
			}
			deadline = timer.C
		}
	collect:
		for n < lim.groupDocs {
			select {
			case r, ok := <-w.ch:
				if !ok {
					break collect
				}
				group = append(group, r)
				n += len(r.docs)
				continue
			default:
			}
			if deadline == nil {
				break
			}
			select {
			case r, ok := <-w.ch:
				if !ok {
					break collect
				}
				group = append(group, r)
				n += len(r.docs)
			case <-deadline:
				deadline = nil
				break collect
			}
		}
		if timer != nil {
			timer.Stop() // no stale tick is delivered after Stop (Go 1.23 timers)
		}
		w.commit(group)
	}
}

// commit decides which documents of group are added, adds them in one
// transaction and answers every request.
func (w *writer) commit(group []*addRequest) {
	results := make([]addResult, len(group))
	var docs []index.Doc
	var pending []*pendingDoc // accepted documents of the group, in order
	ids := map[string]bool{}  // their IDs
	var bytes int64
	rejected := 0
	for gi, r := range group {
		if !r.ifUnique {
			for i := range r.docs {
				d := &r.docs[i]
				docs = append(docs, index.Doc{ID: d.id, Text: d.text})
				pending = append(pending, d)
				ids[d.id] = true
				bytes += int64(len(d.text))
			}
			results[gi].added = len(r.docs)
			continue
		}
		for i := range r.docs {
			d := &r.docs[i]
			ms, err := w.matches(d, r, pending, ids)
			if err != nil {
				results[gi] = addResult{err: err}
				break
			}
			if len(ms) > 0 {
				results[gi].duplicates = append(results[gi].duplicates, duplicate{ID: d.id, Matches: ms})
				rejected++
				continue
			}
			docs = append(docs, index.Doc{ID: d.id, Text: d.text})
			pending = append(pending, d)
			ids[d.id] = true
			bytes += int64(len(d.text))
			results[gi].added++
		}
	}
	if len(docs) > 0 {
		start := time.Now()
		err := w.s.x.Add(docs...)
		w.s.met.commit(len(docs), bytes, time.Since(start), err)
		if err != nil {
			for i := range results {
				results[i] = addResult{err: err}
			}
		}
	}
	w.s.met.rejected.Add(int64(rejected))
	for i, r := range group {
		r.done <- results[i]
	}
}

// matches returns the near duplicates of d among the stored documents and
// the documents accepted before it in its group, leaving out documents with
// d's ID (d replaces them) and stored documents that pending documents
// replace. They are chosen as index.Query chooses them.
func (w *writer) matches(d *pendingDoc, r *addRequest, pending []*pendingDoc, ids map[string]bool) ([]matchRecord, error) {
	opts := r.opts
	opts.Limit = 0
	stored, err := w.s.x.Query(d.text, &opts)
	if err != nil {
		return nil, err
	}
	minHash := w.s.minHash
	var ms []index.Match
	for _, m := range stored {
		if m.ID != d.id && !ids[m.ID] {
			ms = append(ms, m)
		}
	}
	if len(pending) > 0 {
		w.analyse(d)
		seen := map[string]bool{d.id: true}
		// A document ID may be in the group more than once: the last wins.
		for _, p := range slices.Backward(pending) {
			if seen[p.id] {
				continue
			}
			seen[p.id] = true
			w.analyse(p)
			dist := bits.OnesCount64(p.fp ^ d.fp)
			m := index.Match{ID: p.id, Distance: dist}
			if minHash {
				m.Similarity = shingle.Estimate(d.sig, p.sig)
			}
			keep := dist <= r.maxDist
			if opts.MinSimilarity > 0 {
				keep = (keep || shareBand(d.bands, p.bands)) && m.Similarity >= opts.MinSimilarity
			}
			if keep {
				ms = append(ms, m)
			}
		}
	}
	slices.SortFunc(ms, func(a, b index.Match) int {
		if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Similarity, a.Similarity); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if r.opts.Limit > 0 && len(ms) > r.opts.Limit {
		ms = ms[:r.opts.Limit]
	}
	return matchRecords(ms, minHash), nil
}

// analyse fills in d's fingerprint and, with MinHash, signature and bands.
func (w *writer) analyse(d *pendingDoc) {
	if d.analysed {
		return
	}
	fp, sig, bands := w.fpr.Analyze(d.text)
	d.fp, d.sig, d.bands, d.analysed = fp, slices.Clone(sig), slices.Clone(bands), true
}

// shareBand reports whether two band hash lists agree in some band.
func shareBand(a, b []uint64) bool {
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] {
			return true
		}
	}
	return false
}
