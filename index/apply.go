package index

import (
	"fmt"
	"time"
)

// wake makes the applier commit now.
func (w *writeLog) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// applyLoop commits the pending operations to the file every
// ApplyInterval, or at once when woken, until stopped. A failed apply
// leaves the operations pending and logged; it is retried after
// retryDelay, which doubles with each failure in a row (a full disk or a
// process out of file descriptors is not hammered), and wakes are ignored
// until an apply succeeds.
func (w *writeLog) applyLoop() {
	defer close(w.applyDone)
	t := time.NewTimer(w.opts.ApplyInterval)
	defer t.Stop()
	failures := 0
	for {
		kick := w.kick
		if failures > 0 {
			kick = nil
		}
		select {
		case <-w.stop:
			return
		case <-t.C:
		case <-kick:
			t.Stop()
		}
		if err := w.apply(); err != nil {
			failures++
		} else {
			failures = 0
		}
		t.Reset(retryDelay(w.opts.ApplyInterval, failures))
	}
}

// maxRetryDelay bounds the wait before the retry of a failed apply.
const maxRetryDelay = 30 * time.Second

// retryDelay returns the wait before the next apply after failures failed
// ones in a row: interval, doubled per failure, at most maxRetryDelay
// (and never less than interval).
func retryDelay(interval time.Duration, failures int) time.Duration {
	d := interval
	for range min(failures, 32) {
		if d >= maxRetryDelay {
			break
		}
		d *= 2
	}
	return max(min(d, maxRetryDelay), interval)
}

// apply commits every operation published so far to the file: the last
// operation per ID, adds in one synced commit and deletes in another, then
// drops them from the pending level and removes the log segments that
// held them. It costs those commits, and a file removal and directory
// fsync per sealed segment.
func (w *writeLog) apply() error {
	x := w.x
	w.applyMu.Lock()
	defer w.applyMu.Unlock()
	if x.pend.snapshot().len() == 0 {
		return nil
	}
	n, d, err := w.applyPending()
	if f := w.opts.Events.Apply; f != nil {
		f(ApplyInfo{Ops: n, Duration: d, Err: err})
	}
	return err
}

// applyFault, set by tests, runs at the start of each apply; an error
// fails the apply.
var applyFault func() error

// applyPending is apply's work: it returns the operations applied and the
// time of the commits to the file.
func (w *writeLog) applyPending() (int, time.Duration, error) {
	x := w.x
	if applyFault != nil {
		if err := applyFault(); err != nil {
			return 0, 0, err
		}
	}
	if !w.closing {
		if err := w.j.Prepare(); err != nil {
			return 0, 0, err
		}
	}
	// The log's segments sealed hold exactly the operations of the parts
	// sealed: both under appendMu, which the committer holds to append
	// and publish.
	w.appendMu.Lock()
	sealed, _, err := w.j.Rotate()
	var ops []*pendingOp
	parts := 0
	if err == nil {
		ops, parts = x.pend.seal()
	}
	w.appendMu.Unlock()
	if err != nil {
		return 0, 0, err
	}
	// Each add was analyzed by its caller: the file stores its probe
	// without analyzing the text again.
	var docs []probedDoc
	var dels []string
	last := lastPerID(len(ops), func(i int) string { return ops[i].id })
	for _, i := range last {
		if op := ops[i]; op.del {
			dels = append(dels, op.id)
		} else {
			docs = append(docs, probedDoc{ID: op.id, probe: op.probe})
		}
	}
	start := time.Now()
	if len(docs) > 0 {
		if err := x.addProbed(docs...); err != nil {
			return 0, 0, err
		}
	}
	if len(dels) > 0 {
		if _, err := x.deleteDirect(dels...); err != nil {
			return 0, 0, err
		}
	}
	// The file holds them, synced: queries find them there, and the log
	// may forget them. A crash before the removal, or a removal that
	// fails (retried with the next one), replays them, which changes
	// nothing.
	d := time.Since(start)
	x.pend.dropSealed(parts, int(x.count.Load()))
	if err := w.j.Remove(sealed); err != nil {
		return len(last), d, err
	}
	return len(last), d, nil
}

// flush commits every pending operation to the file, for the reads that
// scan the file (Pairs, Clusters, Members, Backup, Check, Stats) and for
// Load and Sync. Without a log it does nothing. It costs an apply.
func (x *Index) flush() error {
	w := x.wlog
	if w == nil || x.pend.snapshot().len() == 0 {
		return nil
	}
	return w.apply()
}

// settle makes the file hold every acknowledged operation, for the reads
// that scan it: on an index with a log it applies the pending operations
// (flush); on a read-only index that read a left log into memory it fails
// with an error wrapping ErrPending.
func (x *Index) settle() error {
	if x.wlog != nil {
		return x.flush()
	}
	if v := x.pendingOps(); v != nil && x.readOnly {
		return fmt.Errorf("%w: %d operations of %s", ErrPending, v.len(), LogDir(x.path))
	}
	return nil
}

// lastPerID returns the positions of the operations an apply commits, of
// n operations in log order whose i-th is on the ID id(i): the last on
// each ID (an add replaces, a delete removes), in the order of each ID's
// first operation. Both the applier and the replay of a left log apply
// through it. Cost: a map insertion per operation.
func lastPerID(n int, id func(int) string) []int {
	last := make(map[string]int, n)
	var order []string
	for i := range n {
		k := id(i)
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = i
	}
	pos := make([]int, len(order))
	for j, k := range order {
		pos[j] = last[k]
	}
	return pos
}
