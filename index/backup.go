package index

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"

	bolt "go.etcd.io/bbolt"
)

// Backup writes a consistent copy of the index to w, a valid index file as
// of the last commit when Backup began, and returns the number of bytes
// written. It runs in one read transaction (bbolt's Tx.WriteTo): writers
// of this process go on meanwhile, and the copy has none of their later
// commits. The copy can be opened as any index.
//
// Cost: a read of the whole file, written to w (the file's size in bytes);
// while it runs, the pages the writers free cannot be reused, so the file
// grows by what they write meanwhile.
func (x *Index) Backup(w io.Writer) (int64, error) {
	if err := x.checkOpen(); err != nil {
		return 0, err
	}
	if err := x.settle(); err != nil {
		return 0, err
	}
	var n int64
	err := x.view(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, boltErr(err)
}

// CopyFile writes to w a copy of the index file at path as of its last
// commit, without opening it as an index or taking its lock: for an index
// that another process holds open for writing (simidx serve), which Open
// cannot read until it is closed. It returns the number of bytes written.
//
// It reads the meta page of the file's last commit, writes it as both
// meta pages of the copy, copies the pages below that commit's high-water
// mark, and then reads the meta pages again. A writer never overwrites a
// page of the last commit before it has made another commit, so if no
// commit was made meanwhile, the copy is that commit, whole and
// consistent. If one was, the copy may mix two commits and CopyFile fails
// with an error wrapping ErrChanged: rewind w and call it again (commits
// often come in bursts). An index in the middle of a bulk load is copied
// with the load's uncommitted documents, which readers ignore and a
// writer's Open removes, as in the file itself.
//
// Cost: a read of the file up to its high-water mark, written to w, and
// two reads of the meta pages. It takes no lock and changes nothing.
func CopyFile(path string, w io.Writer) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	m, err := lastMeta(f)
	if err != nil {
		return 0, fmt.Errorf("copy %s: %w", path, err)
	}
	if m.pgid < 2 {
		return 0, fmt.Errorf("copy %s: %w: high-water mark %d", path, ErrNotIndex, m.pgid)
	}
	ps := int64(m.pageSize)
	page := make([]byte, ps)
	var n int64
	for id := range uint64(2) {
		copy(page, m.raw[:])
		binary.LittleEndian.PutUint64(page, id) // the page's header names it
		k, err := w.Write(page)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	rest := (int64(m.pgid) - 2) * ps
	k, err := io.Copy(w, io.NewSectionReader(f, 2*ps, rest))
	n += k
	switch {
	case err != nil:
		return n, err
	case k < rest:
		return n, fmt.Errorf("copy %s: %w: truncated while copied: %d bytes, needs %d", path, ErrNotIndex, 2*ps+k, 2*ps+rest)
	}
	again, err := lastMeta(f)
	if err != nil || again.txid != m.txid {
		return n, fmt.Errorf("copy %s: %w", path, ErrChanged)
	}
	return n, nil
}

// boltMeta is a bbolt meta page: the root of one commit.
type boltMeta struct {
	pgid, txid, freelist uint64 // high-water mark, transaction, freelist page
	pageSize             uint32
	raw                  [16 + 64]byte // the page header and the meta
}

// lastMeta returns the meta page of the last commit of the bbolt file f:
// of its two meta pages, the valid one (magic, version and checksum) of
// the larger transaction ID. It fails with ErrNotIndex if neither is
// valid. Cost: two reads of 80 bytes.
func lastMeta(f io.ReaderAt) (boltMeta, error) {
	read := func(off int64) (boltMeta, bool) {
		var m boltMeta
		if _, err := f.ReadAt(m.raw[:], off); err != nil {
			return boltMeta{}, false
		}
		b := m.raw[16:]
		le := binary.LittleEndian
		h := fnv.New64a()
		h.Write(b[:56])
		if le.Uint32(b[0:]) != 0xED0CDAED || le.Uint32(b[4:]) != 2 || le.Uint64(b[56:]) != h.Sum64() {
			return boltMeta{}, false
		}
		m.pgid, m.txid, m.freelist, m.pageSize = le.Uint64(b[40:]), le.Uint64(b[48:]), le.Uint64(b[32:]), le.Uint32(b[8:])
		return m, true
	}
	m0, ok0 := read(0)
	ps := m0.pageSize
	if !ok0 {
		ps = uint32(os.Getpagesize())
	}
	if ps < 512 || ps > 1<<20 {
		return boltMeta{}, fmt.Errorf("%w: bad page size %d", ErrNotIndex, ps)
	}
	m1, ok1 := read(int64(ps))
	switch {
	case ok0 && (!ok1 || m0.txid >= m1.txid):
		return m0, nil
	case ok1:
		return m1, nil
	}
	return boltMeta{}, fmt.Errorf("%w: no valid bbolt meta page", ErrNotIndex)
}
