package index

import (
	"errors"
	"fmt"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// update runs fn in a write transaction, a panic in it (a damaged file)
// returned as ErrCorrupt; see recoverCorrupt.
func (x *Index) update(fn func(*bolt.Tx) error) (err error) {
	if x.faulted.Load() {
		return errFaulted
	}
	var tx *bolt.Tx
	defer x.recoverCorrupt(&err, &tx)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return x.db.Update(func(t *bolt.Tx) error {
		tx = t
		t.DB().AllocSize = allocSize(t.Size()) // read when the commit grows the file
		return fn(t)
	})
}

// view runs fn in a read transaction, with x.readers held (read) so that
// the recent band levels fn may use outlive it.
func (x *Index) view(fn func(*bolt.Tx) error) (err error) {
	if x.faulted.Load() {
		return errFaulted
	}
	x.readers.RLock()
	defer x.readers.RUnlock()
	var tx *bolt.Tx
	defer x.recoverCorrupt(&err, &tx)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return x.db.View(func(t *bolt.Tx) error {
		tx = t
		return fn(t)
	})
}

// viewBegunHook, set by tests, runs in viewFiltered as soon as the
// transaction has begun.
var viewBegunHook func()

// viewFiltered is view for queries: it also passes fn the band filter
// that holds every band key and exact hash of fn's snapshot, or nil (no
// filter: look every key up). That is the filter current when the
// transaction began: a writer adds a key to the current filter before its
// commit, a rebuild scans a snapshot no write commits after until the
// filter is stored, and a filter never forgets a key. A filter loaded
// later may have been rebuilt from a newer snapshot, after a replace or a
// delete removed a key fn's snapshot still has, and would make a query
// skip that key's documents. So the filter is loaded before and after the
// transaction begins: the same one both times was current in between;
// else (a rebuild, rare) fn gets nil. Cost: two atomic loads.
func (x *Index) viewFiltered(fn func(*bolt.Tx, *bandFilter) error) (err error) {
	if x.faulted.Load() {
		return errFaulted
	}
	x.readers.RLock()
	defer x.readers.RUnlock()
	var began *bolt.Tx
	defer x.recoverCorrupt(&err, &began)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	before := x.filter.Load()
	return x.db.View(func(tx *bolt.Tx) error {
		began = tx
		if viewBegunHook != nil {
			viewBegunHook()
		}
		bf := x.filter.Load()
		if bf != before {
			bf = nil
		}
		return fn(tx, bf)
	})
}

// recoverCorrupt, deferred around a transaction, turns a panic in it into
// an error wrapping ErrCorrupt: bbolt panics on a page it cannot read (a
// damaged file), and a reader of the index, a server above all, must get
// an error instead of a crash. The transactions also run with
// debug.SetPanicOnFault, so that a read of the file's mapping at a wild
// page number panics instead of crashing the process. A panic of the caller's own function
// (userPanic) goes on as it began. bbolt rolls the transaction back as the
// panic passes through it.
//
// tx is the transaction as fn received it, nil if the panic came before
// (see transactionFault).
func (x *Index) recoverCorrupt(err *error, tx **bolt.Tx) {
	r := recover()
	if r == nil {
		return
	}
	x.transactionFault(*tx)
	if u, ok := r.(userPanic); ok {
		panic(u.v)
	}
	*err = fmt.Errorf("%w: %v", ErrCorrupt, r)
}

// transactionFault marks x as faulted when a panic left the transaction
// tx open: one that stopped bbolt as it began the transaction (tx nil:
// bbolt reads the meta page holding its locks) or as it rolled it back.
// bbolt closes a transaction, and releases its locks, last; a closed
// transaction has no DB. A panic inside fn leaves none open: bbolt rolls
// the transaction back as the panic passes through it.
func (x *Index) transactionFault(tx *bolt.Tx) {
	if tx == nil || tx.DB() != nil {
		x.faulted.Store(true)
	}
}

// errFaulted is the error of every method of an index after a fault left
// bbolt's locks held (see Index.faulted).
var errFaulted = fmt.Errorf("%w: a damaged or truncated file stopped a transaction half-way; reopen the index after repairing it", ErrCorrupt)

// userPanic carries a panic of a caller's function, called inside a
// transaction, through recoverCorrupt.
type userPanic struct{ v any }

// callUser returns fn(v), marking a panic of fn as the caller's own.
func callUser[T any](fn func(T) error, v T) error {
	defer func() {
		if r := recover(); r != nil {
			panic(userPanic{r})
		}
	}()
	return fn(v)
}

// boltErr maps errors from bbolt to the package's sentinels.
func boltErr(err error) error {
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}
