package index

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Bucket and key names.
var (
	bucketMeta  = []byte("meta")
	bucketIDs   = []byte("ids")
	bucketDocs  = []byte("docs")
	bucketExact = []byte("exact")
	bucketBands = []byte("bands")
	// bucketSets holds the postings of a set method: set hash (8 bytes)
	// to a roaring bitmap of document numbers.
	bucketSets = []byte("sets")
	// bucketTables holds all permuted tables: the key of a group is the
	// table number (2 bytes) followed by the group's prefix.
	bucketTables = []byte("tables")

	keyVersion    = []byte("version")
	keySettings   = []byte("settings")
	keyNext       = []byte("next")       // next document number: documents at or above it are not committed
	keyCount      = []byte("count")      // number of committed documents
	keyBandsFrom  = []byte("bandsfrom")  // band watermark (schema 2, MinHash only): see meta.bandsFrom
	keyTablesFrom = []byte("tablesfrom") // table watermark (schema 3): see meta.tablesFrom
	keyMergeUpto  = []byte("mergeupto")  // end of the merge under way (schema 3): see meta.merging
	keyMergeDone  = []byte("mergedone")  // slices of it done (schema 3)

	// bucketLoading exists while a bulk load writes uncommitted documents.
	// (A bucket in the root rather than a key in meta: readers check it
	// on every query, and a root lookup is the cheapest.)
	bucketLoading = []byte("loading")
)

// loading reports whether tx sees an uncommitted bulk load (whose documents
// readers ignore).
func loading(tx *bolt.Tx) bool { return tx.Bucket(bucketLoading) != nil }

// Open opens the index at path, creating it (with opts.Settings) if the file
// does not exist or is empty and opts.ReadOnly is not set. A nil opts means
// the zero Options.
//
// Open fails with an error wrapping ErrLocked if another process holds the
// file open for writing (or, for a writer, at all) for longer than
// opts.Timeout; ErrNotIndex if the file is not an index or is truncated;
// ErrVersion if it was written by a newer schema; ErrSettings if
// opts.Settings conflict with the stored settings. If a bulk load was
// interrupted by a crash, a writable Open removes its uncommitted
// documents; read-only handles ignore them.
func Open(path string, opts *Options) (*Index, error) {
	if opts == nil {
		opts = &Options{}
	}
	var want Settings
	if opts.Settings != nil {
		var err error
		if want, err = opts.Settings.normalize(); err != nil {
			return nil, err
		}
	} else {
		want = DefaultSettings()
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("open %s: %w: is a directory", path, ErrNotIndex)
	case err == nil && fi.Size() > 0:
		if err := checkFile(path, fi.Size()); err != nil {
			return nil, fmt.Errorf("open %s: %w", path, err)
		}
	case err == nil && opts.ReadOnly:
		return nil, fmt.Errorf("open %s: %w: empty file", path, ErrNotIndex)
	case err != nil && (opts.ReadOnly || !errors.Is(err, os.ErrNotExist)):
		return nil, err
	}

	db, err := openBolt(path, &bolt.Options{
		Timeout:         opts.timeout(),
		ReadOnly:        opts.ReadOnly,
		NoSync:          opts.NoSync,
		InitialMmapSize: initialMmapSize,
	})
	if err != nil {
		switch {
		case errors.Is(err, berrors.ErrTimeout):
			return nil, fmt.Errorf("open %s: %w", path, ErrLocked)
		case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch),
			errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrInvalidMapping):
			return nil, fmt.Errorf("open %s: %w: %v", path, ErrNotIndex, err)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.AllocSize = allocSize(0) // the first commits; update sets it for the file's size
	x := &Index{db: db, path: path, readOnly: opts.ReadOnly, recentMax: opts.RecentBands}
	if err := x.init(want, opts.Settings); err != nil {
		x.abandon()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if opts.BandFilter {
		x.useFilter = true
		if err := x.rebuildBandFilter(0); err != nil {
			x.abandon()
			return nil, fmt.Errorf("open %s: %w", path, err)
		}
	}
	if opts.TableMirror {
		x.useMirror = true
		if err := x.rebuildTableMirror(); err != nil {
			x.abandon()
			return nil, fmt.Errorf("open %s: %w", path, err)
		}
	}
	var lo LogOptions
	if opts.Log != nil {
		lo = *opts.Log
	}
	if opts.ReadOnly {
		err = x.readLeftLog()
	} else {
		err = x.openLog(lo, opts.NoSync)
	}
	if err != nil {
		x.abandon()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return x, nil
}

// abandon closes the database of an x that failed to open, unless a fault
// left bbolt's locks held (see Index.faulted): bbolt's Close would wait for
// them forever, and the file then stays open until the process exits.
func (x *Index) abandon() {
	if !x.faulted.Load() {
		x.db.Close()
	}
}

// checkFile validates the bbolt meta pages of an existing file before
// bbolt maps it, so that a truncated file is an error rather than a fault
// when bbolt reads past its end.
func checkFile(path string, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cur, err := lastMeta(f)
	if err != nil {
		return err
	}
	ps, pgid := uint64(cur.pageSize), cur.pgid
	if need := pgid * ps; need > uint64(size) {
		return fmt.Errorf("%w: truncated: %d bytes, needs %d", ErrNotIndex, size, need)
	}
	return checkFreelist(f, cur.freelist, pgid, ps)
}

// checkFreelist validates the freelist page of a bbolt file whose meta
// page names page freelist and a high water mark of pgid pages of size
// ps, as bbolt reads it when it opens the file: a damaged one would make
// bolt.Open panic with the file mapped, and so locked, for the rest of
// the process. Cost: a read of the freelist page.
func checkFreelist(f *os.File, freelist, pgid, ps uint64) error {
	if freelist == ^uint64(0) {
		return nil // not written: bbolt scans the file instead
	}
	bad := func(why string) error {
		return fmt.Errorf("%w: freelist page %d: %s", ErrCorrupt, freelist, why)
	}
	if freelist < 2 || freelist >= pgid {
		return bad("out of the file")
	}
	var h [24]byte
	if _, err := f.ReadAt(h[:], int64(freelist*ps)); err != nil {
		return bad(err.Error())
	}
	le := binary.LittleEndian
	overflow := uint64(le.Uint32(h[12:]))
	switch {
	case le.Uint64(h[0:]) != freelist:
		return bad("its header names another page")
	case le.Uint16(h[8:])&0x10 == 0:
		return bad("not a freelist page")
	case freelist+overflow >= pgid:
		return bad("runs past the file")
	}
	n, off := uint64(le.Uint16(h[10:])), uint64(16)
	if n == 0xffff { // the count is the first element
		n, off = le.Uint64(h[16:]), 24
	}
	if off+8*n > (overflow+1)*ps {
		return bad("holds more page IDs than its pages")
	}
	ids := make([]byte, 8*n)
	if _, err := f.ReadAt(ids, int64(freelist*ps+off)); err != nil {
		return bad(err.Error())
	}
	for i := 0; i < len(ids); i += 8 {
		if id := le.Uint64(ids[i:]); id < 2 || id >= pgid {
			return bad(fmt.Sprintf("frees page %d, out of the file", id))
		}
	}
	return nil
}

// openBolt is bolt.Open, a panic in it returned as an error wrapping
// ErrCorrupt (checkFile validates the pages bbolt reads as it opens a
// file, so this is a last resort). The file is closed, but if bbolt had
// mapped it, the mapping, which only bbolt could release, keeps the file
// and so its lock for the rest of the process.
func openBolt(path string, o *bolt.Options) (db *bolt.DB, err error) {
	var f *os.File
	o.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		fh, err := os.OpenFile(name, flag, perm)
		f = fh
		return fh, err
	}
	defer func() {
		if r := recover(); r != nil {
			if f != nil {
				f.Close()
			}
			db, err = nil, fmt.Errorf("%w: %v", ErrCorrupt, r)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return bolt.Open(path, 0o644, o)
}

// persisted is the JSON stored under meta/settings.
type persisted struct {
	Settings
	// SignatureBits is the bits kept of each signature value: 8 in an
	// index created by schema 13 or later, 16 in one created by schema 10
	// to 12; absent (0) in one created before, which is wide (see
	// bands.go).
	SignatureBits int `json:"signature_bits,omitempty"`
	// ShortLayer is the version of the short-text layer of an index with
	// it: 2 in an index created by schema 14 or later; absent (0) in one
	// created before, whose layer is that of schema 7 to 13
	// (Settings.shortV1).
	ShortLayer int `json:"short_layer,omitempty"`
}

// init reads (or, for a new file, writes) the meta bucket and prepares x.
// A panic of bbolt (a damaged page: the meta pages passed checkFile) is
// returned as ErrCorrupt.
func (x *Index) init(want Settings, given *Settings) (err error) {
	var tx *bolt.Tx // the transaction begun, for transactionFault
	defer func() {
		if r := recover(); r != nil {
			x.transactionFault(tx)
			err = fmt.Errorf("%w: %v", ErrCorrupt, r)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var st Settings
	var fresh bool
	group := -1      // the band group width (see bandgroups.go)
	var form byte    // the form of the band groups' entries (groupsUntagged, ...)
	idGroup := -1    // the ID group width (see idgroups.go)
	exactGroup := -1 // the exact group width (see exactgroups.go)
	read := func(t *bolt.Tx) error {
		tx = t
		mb := tx.Bucket(bucketMeta)
		if mb == nil {
			empty := true
			tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return io.EOF })
			if empty && tx.Writable() {
				fresh = true
				return nil
			}
			return fmt.Errorf("%w: no meta bucket", ErrNotIndex)
		}
		v := mb.Get(keyVersion)
		if len(v) != 4 {
			return fmt.Errorf("%w: no schema version", ErrNotIndex)
		}
		if ver := binary.BigEndian.Uint32(v); ver > SchemaVersion {
			return fmt.Errorf("%w: schema version %d, this program reads up to %d", ErrVersion, ver, SchemaVersion)
		} else if ver < 1 {
			return fmt.Errorf("%w: schema version %d", ErrNotIndex, ver)
		}
		group = -1
		if g := mb.Get(keyBandGroups); (len(g) == 1 || len(g) == 2 && g[1] >= groupsTagged && g[1] <= groupsLarge) && g[0] <= 32 {
			group = int(g[0])
			if form = groupsUntagged; len(g) == 2 {
				form = g[1]
			}
		} else if g != nil {
			return fmt.Errorf("%w: band group width %x", ErrNotIndex, g)
		}
		idGroup, exactGroup = -1, -1
		if g := mb.Get(keyIDGroups); len(g) == 1 && g[0] <= 32 {
			idGroup = int(g[0])
		} else if g != nil {
			return fmt.Errorf("%w: ID group width %x", ErrNotIndex, g)
		}
		if g := mb.Get(keyExactGroups); len(g) == 1 && g[0] <= 32 {
			exactGroup = int(g[0])
		} else if g != nil {
			return fmt.Errorf("%w: exact group width %x", ErrNotIndex, g)
		}
		var p persisted
		raw := mb.Get(keySettings)
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("%w: settings: %v", ErrNotIndex, err)
		}
		var short struct {
			Units *int `json:"short_units"`
		}
		if err := json.Unmarshal(raw, &short); err != nil {
			return fmt.Errorf("%w: settings: %v", ErrNotIndex, err)
		}
		if short.Units == nil {
			// Settings stored before schema 7, which has no short-text
			// layer.
			p.ShortUnits = NoShortLayer
		}
		if p.MaxDistance == 0 {
			p.MaxDistance = ZeroDistance // stored as a real distance
		}
		p.NoMinHash = !p.MinHash // stored as whether the layer is there
		switch p.SignatureBits {
		case 0:
			p.wide = true
		case 16:
			p.sig16 = true
		case 8:
		default:
			return fmt.Errorf("%w: signature bits %d", ErrNotIndex, p.SignatureBits)
		}
		switch p.ShortLayer {
		case 0:
			p.shortV1 = true
		case 2:
		default:
			return fmt.Errorf("%w: short-text layer %d", ErrNotIndex, p.ShortLayer)
		}
		n, err := p.Settings.normalize()
		if err != nil {
			return fmt.Errorf("%w: stored settings: %v", ErrNotIndex, err)
		}
		// Groups of schema 13 or 14: see Settings.groups16.
		n.groups16 = n.MinHash && (form == groupsTagged || form == groupsListed)
		st = n
		if st.MinHash && group >= 0 && ((form != groupsUntagged) != st.tagged() || form != groupsUntagged && group != bandGroupBits(st.ExpectedDocs, form)) {
			// The band hashes that the analysis keeps (bandHashKeep)
			// are those the groups hold. Checked before an upgrade
			// writes anything.
			return fmt.Errorf("%w: band groups of width %d, form %d, in an index of signature bits %d", ErrNotIndex, group, form, st.signatureBits())
		}
		if c := mb.Get(keyCount); len(c) == 8 {
			x.count.Store(int64(binary.BigEndian.Uint64(c)))
		} else {
			return fmt.Errorf("%w: no document count", ErrNotIndex)
		}
		return nil
	}
	if x.readOnly {
		err = x.db.View(read)
	} else {
		err = x.db.Update(func(tx *bolt.Tx) error {
			if err := read(tx); err != nil {
				return err
			}
			if fresh {
				st = want
				// An index made with the settings of an index created
				// before schema 13 keeps its band groups' entries too;
				// one made with the settings of a schema 13 or 14 index
				// has the listed groups of schema 14, which read as
				// schema 13's, of the same width and band hashes.
				group, form = st.bandGroups()
				idGroup = hashGroupBits(st.ExpectedDocs)
				exactGroup = idGroup
				return create(tx, st)
			}
			return upgrade(tx)
		})
	}
	if err != nil {
		return err
	}
	if given != nil && !fresh {
		if err := given.conflicts(st); err != nil {
			return err
		}
	}
	x.settings = st
	x.groups = groupCodecFor(group, st.wide, form)
	x.ids = idGroups(idGroup)
	x.exact = exactGroups(exactGroup)
	x.tables = st.Design.tables(st.MaxDistance)
	x.keyBytes = (st.Design.KeyBits + 7) / 8
	x.sufBytes = (64 - st.Design.KeyBits + 7) / 8
	x.lay = layout{k: st.MinHashK, bands: st.bandSlots(), sets: st.Text.Method.IsSet(), wide: st.wide, sig16: st.sig16, short16: st.hasShort() && !st.shortV1}
	if st.MinHash {
		if x.lay.bh, err = newBandHasher(&st, st.Text.Scheme); err != nil {
			return err
		}
	}
	x.akey = analysisKey(&st)
	if !x.readOnly {
		if err := x.recover(); err != nil {
			return err
		}
	}
	err = x.db.View(func(tx *bolt.Tx) error {
		// The levels: the documents from the watermarks on, those of a
		// merge under way (a slice at a time; the next commit goes on
		// with it) apart.
		m := x.readMeta(tx)
		tfrom, bfrom := m.tablesFrom, m.bandsFrom // of the current level
		if m.merging {
			x.lmrg.Store(x.buildLevel(tx, m.tablesFrom, m.bandsFrom, m.mergeUpto))
			tfrom, bfrom = m.mergeUpto, m.mergeUpto
		}
		x.lcur.Store(x.buildLevel(tx, tfrom, bfrom, ^uint32(0)))
		return nil
	})
	return err
}

// create writes the buckets of a new index.
func create(tx *bolt.Tx, st Settings) error {
	mb, err := tx.CreateBucket(bucketMeta)
	if err != nil {
		return err
	}
	p := persisted{Settings: st}
	if !st.wide {
		p.SignatureBits = st.signatureBits()
	}
	if st.hasShort() && !st.shortV1 {
		p.ShortLayer = 2
	}
	js, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if err := mb.Put(keySettings, js); err != nil {
		return err
	}
	if err := mb.Put(keyVersion, binary.BigEndian.AppendUint32(nil, SchemaVersion)); err != nil {
		return err
	}
	if err := mb.Put(keyNext, make([]byte, 4)); err != nil {
		return err
	}
	if err := mb.Put(keyCount, make([]byte, 8)); err != nil {
		return err
	}
	g := []byte{byte(hashGroupBits(st.ExpectedDocs))}
	if err := mb.Put(keyIDGroups, g); err != nil {
		return err
	}
	if err := mb.Put(keyExactGroups, g); err != nil {
		return err
	}
	names := [][]byte{bucketIDs, bucketDocs, bucketExact, bucketTables}
	if st.MinHash {
		names = append(names, bucketBands)
		if err := mb.Put(keyBandGroups, bandGroupsValue(st.bandGroups())); err != nil {
			return err
		}
	}
	if st.Text.Method.IsSet() {
		names = append(names, bucketSets)
	}
	if st.StoreShingles {
		names = append(names, bucketShingles)
	}
	for _, n := range names {
		if _, err := tx.CreateBucket(n); err != nil {
			return err
		}
	}
	return nil
}

// recover removes the uncommitted documents of an interrupted bulk load.
// A bulk load only starts on an empty index, so they are all there is
// besides the meta bucket: recover recreates the other buckets.
func (x *Index) recover() error {
	return x.db.Update(func(tx *bolt.Tx) error {
		m := x.readMeta(tx)
		if !m.loading {
			return nil
		}
		if m.count != 0 {
			return fmt.Errorf("%w: interrupted bulk load in an index of %d documents", ErrCorrupt, m.count)
		}
		var names [][]byte
		err := tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			if string(name) != string(bucketMeta) && string(name) != string(bucketLoading) {
				names = append(names, append([]byte(nil), name...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		x.tablesTx.Store(uint64(tx.ID())) // see tableMirror
		for _, n := range names {
			if err := tx.DeleteBucket(n); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(n); err != nil {
				return err
			}
		}
		m.loading = false
		return x.writeMeta(tx, m)
	})
}

// upgrade rewrites a file of an older schema as SchemaVersion when it is
// opened for writing. Schema 2 added the band watermark (meta key
// bandsfrom) of an index with MinHash, schema 3 the table watermark (meta
// key tablesfrom). In a file without one, every band posting or table
// entry is in its bucket: the watermark is at the next document number,
// the value readMeta gives when the key is absent, and the value written
// here. writeMeta writes them from then on. Schema 4 keeps the exact keys
// of an index with MinHash from the band watermark on in the band level
// (meta.exactFrom): a file of schema 3 has them in the bucket as well,
// which schema 4 allows, so only its version changes. Schema 5 adds the
// shingles bucket of an index with Settings.StoreShingles, which an older
// file never has: only its version changes. Schema 6 ends each record
// written with its checksum (flagCRC), which the records of an older file
// lack, as their flags say: only the version changes. Schema 7 adds the
// short-text layer (Settings.ShortUnits), which settings stored without
// the field do not have: only the version changes. Schema 8 writes a
// posting of one document as its number (singletonPosting), where older
// schemas wrote a roaring bitmap, which readPosting still reads: only the
// version changes. Schema 8 also stores the low 32 bits of each
// signature value (flagSig32 in the record's flags), which is all that
// shingle.Estimate compares; records written before keep 8 bytes a value
// and read as they are. Schema 9 groups the band postings of an index
// it creates (see bandgroups.go, meta key bandgroups); the postings of an
// older file stay one key per hash and are read and written so: only the
// version changes. Schema 10 keeps 16 bits of each signature value and 32
// of each short-set value in the records of an index it creates, computes
// the bands from them instead of storing them (flagCompact), and keeps 48
// bits of each band hash, of which a band group entry holds those after
// the group's (see bands.go; its settings have signature_bits). An older
// index is wide: it keeps the analysis it was created with, since its
// stored bands are of 64-bit values, and its records and band groups are
// read and written as before; only the version changes. Indexing the
// corpus again makes a compact index. Schema 11 groups the ids bucket of
// an index it creates by the hash of the ID (see idgroups.go, meta key
// idgroups) and the exact bucket by the canonical-text hash (see
// exactgroups.go, meta key exactgroups); an older file keeps a key per ID
// and per exact pair, and is read and written so: only the version
// changes. Schema 12 lets the docs bucket hold groups of the records of
// consecutive documents (see docgroups.go), which a bulk load writes; an
// older file has a key per document, which schema 12 reads and writes as
// well: only the version changes. Schema 13 keeps 8 bits of each
// signature value in the records of an index it creates (flagSig8, its
// settings' signature_bits 8); an index created by schema 10 to 12 keeps
// 16 (signature_bits 16, Settings.sig16), its 48-bit band hashes and the
// entries of its band groups (see bandgroups.go): only the version
// changes. Schema 14 writes a posting of a few documents in the band
// groups of an index it creates as a list of their numbers (groupsListed,
// meta bandgroups' second byte 2); an index created by schema 13 keeps
// its tagged groups (second byte 1), read and written as before: only the
// version changes. Schema 15 makes the band groups of an index it creates
// about four times as large, of band hashes of two bits fewer (groupsLarge,
// second byte 3: see bandgroups.go); an index created by schema 13 or 14
// keeps its groups and band hashes (Settings.groups16), read and written
// as before: only the version changes. A program of an older schema refuses
// the upgraded file (ErrVersion): it would miss the documents of the
// in-memory levels.
func upgrade(tx *bolt.Tx) error {
	mb := tx.Bucket(bucketMeta)
	ver := binary.BigEndian.Uint32(mb.Get(keyVersion))
	if ver >= SchemaVersion {
		return nil
	}
	next := mb.Get(keyNext)
	if len(next) == 4 {
		if ver < 2 && tx.Bucket(bucketBands) != nil {
			if err := mb.Put(keyBandsFrom, append([]byte(nil), next...)); err != nil {
				return err
			}
		}
		if ver < 3 {
			if err := mb.Put(keyTablesFrom, append([]byte(nil), next...)); err != nil {
				return err
			}
		}
	}
	return mb.Put(keyVersion, binary.BigEndian.AppendUint32(nil, SchemaVersion))
}
