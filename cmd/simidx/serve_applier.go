package main

import (
	"fmt"
	"os"
	"time"

	"github.com/simidx/simidx/index"
)

// applier commits the pending operations to the index in the background:
// every applyInterval, or as soon as applyDocs operations are pending, it
// seals the journal's current segment, commits the sealed operations in
// one synced index transaction (two when there are deletes), deletes the
// sealed segments and drops the operations from the overlay. Committing
// thousands of documents at once costs far less per document than the
// small commits of each group (each document dirties about twenty B+tree
// pages; a large commit shares the tree's upper pages and its fsyncs).
type applier struct {
	s       *server
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	closing bool // set by close once the loop has stopped
}

func newApplier(s *server) *applier {
	a := &applier{s: s, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go a.loop()
	return a
}

// nudge wakes the applier early when pending operations reach applyDocs.
func (a *applier) nudge(pending int) {
	if pending >= a.s.lim.applyDocs {
		a.wake()
	}
}

// wake makes the applier commit now.
func (a *applier) wake() {
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

func (a *applier) loop() {
	defer close(a.done)
	// The commits run at the priority of the requests: at a lower one, a
	// commit starved of CPU would hold up the requests that wait on it
	// (for a lock of the store's, or for a collection to stop every
	// thread).
	t := time.NewTicker(a.s.lim.applyInterval)
	defer t.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
		case <-a.kick:
		}
		if err := a.apply(); err != nil {
			// The operations stay pending and journaled; retried on the
			// next tick.
			fmt.Fprintf(os.Stderr, "simidx serve: applying the journal to the index: %v\n", err)
		}
	}
}

// close stops the loop and applies everything still pending.
func (a *applier) close() error {
	close(a.stop)
	<-a.done
	a.closing = true // no spare segment: the journal is removed next
	return a.apply()
}

// apply commits every operation published so far. It costs one synced
// index commit per kind of operation, and a file removal and directory
// fsync per sealed segment.
func (a *applier) apply() error {
	s := a.s
	if s.ov.snapshot().len() == 0 {
		return nil
	}
	if !a.closing {
		if err := s.j.Prepare(); err != nil {
			return a.fail(err)
		}
	}
	s.appendMu.Lock()
	sealed, _, err := s.j.Rotate()
	upto := s.ov.lastSeq()
	s.appendMu.Unlock()
	if err != nil {
		return a.fail(err)
	}
	v := s.ov.snapshot()
	// Last operation per ID wins: an add replaces, a delete removes.
	last := map[string]*pendingOp{}
	var order []string
	for _, op := range v.ops {
		if op.seq > upto {
			break
		}
		if _, ok := last[op.id]; !ok {
			order = append(order, op.id)
		}
		last[op.id] = op
	}
	// Each add was analyzed by its handler: the index stores its probe
	// without analyzing the text again.
	var docs []index.ProbedDoc
	var dels []string
	for _, id := range order {
		op := last[id]
		if op.del {
			dels = append(dels, id)
		} else {
			docs = append(docs, index.ProbedDoc{ID: id, Probe: op.probe})
		}
	}
	start := time.Now()
	if len(docs) > 0 {
		if err := s.x.AddProbed(docs...); err != nil {
			return a.fail(err)
		}
	}
	if len(dels) > 0 {
		if _, err := s.x.Delete(dels...); err != nil {
			return a.fail(err)
		}
	}
	s.met.applied(len(order), time.Since(start))
	// The index holds them, synced: queries find them there, and the
	// journal may forget them. A crash before the removal, or a removal
	// that fails (retried with the next one), replays them, which changes
	// nothing.
	s.ov.drop(upto, s.x.Len())
	if err := s.j.Remove(sealed); err != nil {
		return a.fail(err)
	}
	return nil
}

// fail counts err.
func (a *applier) fail(err error) error {
	a.s.met.applyErrors.Add(1)
	return err
}
