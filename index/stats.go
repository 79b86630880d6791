package index

import (
	"encoding/binary"
	"os"

	bolt "go.etcd.io/bbolt"
)

// Stats describe an index: its design and what it costs on disk.
type Stats struct {
	// Docs is the number of documents.
	Docs int `json:"docs"`

	// Empty is the number of documents with no words (no units after
	// canonicalization), which match nothing.
	Empty int `json:"empty"`

	// SchemaVersion is the on-disk schema version.
	SchemaVersion int `json:"schema_version"`

	// RecentBands is, with MinHash, the number of document numbers from
	// the band watermark on: the documents whose band postings are kept
	// in memory until the next merge (Options.RecentBands).
	RecentBands int `json:"recent_bands"`

	// RecentTables is the number of document numbers from the table
	// watermark on: the documents whose permuted-table entries are kept in
	// memory until the next merge (Options.RecentBands).
	RecentTables int `json:"recent_tables"`

	// MaxDistance is k, the distance the tables are built for.
	MaxDistance int `json:"max_distance"`

	// ExpectedDocs is the corpus size the design was chosen for.
	ExpectedDocs int `json:"expected_docs"`

	// Tables, Blocks, PrefixBits (the smallest p over tables) and KeyBits
	// describe the design (see Design).
	Tables     int   `json:"tables"`
	Blocks     []int `json:"blocks"`
	PrefixBits int   `json:"prefix_bits"`
	KeyBits    int   `json:"key_bits"`

	// MinHash, MinHashK, Bands and MinBands describe the MinHash layer.
	MinHash  bool `json:"minhash"`
	MinHashK int  `json:"minhash_k"`
	Bands    int  `json:"bands"`
	MinBands int  `json:"min_bands,omitempty"`

	// SignatureBits is, with MinHash, the bits kept of each signature
	// value: 8 in an index created by schema 13 or later, 16 in one
	// created by schema 10 to 12, 32 in a wide one, created before, which
	// keeps its band hashes in its records (see docs/index.md, Format
	// versions); indexing the corpus again makes it compact.
	SignatureBits int `json:"signature_bits,omitempty"`

	// ShortUnits, ShortBands and ShortRows describe the short-text layer
	// (Settings.ShortUnits); zero without it.
	ShortUnits int `json:"short_units,omitempty"`
	ShortBands int `json:"short_bands,omitempty"`
	ShortRows  int `json:"short_rows,omitempty"`
	// ShortLayer is the version of the short-text layer (see
	// Settings.ShortLayer): 2 in an index created by schema 14 or later,
	// 1 in one created by schema 7 to 13; zero without the layer.
	ShortLayer int `json:"short_layer,omitempty"`

	// Method is the index's method (TextSettings.Method).
	Method Method `json:"method"`

	// SetHashes is the number of distinct hashes in the set postings, and
	// SetBytes the size of their pages (set methods only).
	SetHashes int   `json:"set_hashes,omitempty"`
	SetBytes  int64 `json:"set_bytes,omitempty"`

	// FileBytes is the size of the index file, and DataBytes that of its
	// pages in use (free pages included): the file grows ahead of its
	// data, by an eighth of it at a time, at least 1 MiB, at most 64 MiB.
	FileBytes int64 `json:"file_bytes"`
	DataBytes int64 `json:"data_bytes"`

	// BytesPerDoc is DataBytes / Docs (0 when empty).
	BytesPerDoc float64 `json:"bytes_per_doc"`

	// TableBytes is the size of the pages of all permuted tables, and
	// TableBytesPerDoc that per document per table.
	TableBytes       int64   `json:"table_bytes"`
	TableBytesPerDoc float64 `json:"table_bytes_per_doc"`

	// TableMirrorBytes is the size of the copy of the tables in memory
	// (Options.TableMirror; 0 without one), and TableMirrorInUse whether
	// the queries of the newest snapshot use it: not after a replace or
	// delete of a merged document, or during a merge, until the copy is
	// made again.
	TableMirrorBytes int64 `json:"table_mirror_bytes,omitempty"`
	TableMirrorInUse bool  `json:"table_mirror_in_use,omitempty"`
}

// Stats returns statistics of the index. It walks every page of the
// tables (and of the set postings), so it costs a read of the index, in
// time linear in its table entries.
func (x *Index) Stats() (Stats, error) {
	if err := x.checkOpen(); err != nil {
		return Stats{}, err
	}
	if err := x.settle(); err != nil {
		return Stats{}, err
	}
	st := x.settings
	pmin, _ := st.Design.PrefixBits(st.MaxDistance)
	s := Stats{
		SchemaVersion: SchemaVersion,
		MaxDistance:   st.MaxDistance,
		ExpectedDocs:  st.ExpectedDocs,
		Tables:        len(x.tables),
		Blocks:        append([]int(nil), st.Design.Blocks...),
		PrefixBits:    pmin,
		KeyBits:       st.Design.KeyBits,
		MinHash:       st.MinHash,
		MinHashK:      st.MinHashK,
		Bands:         st.Bands,
		MinBands:      st.MinBands,
		Method:        st.Text.Method,
	}
	if st.hasShort() {
		s.ShortUnits, s.ShortBands, s.ShortRows = st.ShortUnits, st.ShortBands, st.ShortRows
		s.ShortLayer = st.ShortLayer()
	}
	if st.MinHash {
		s.SignatureBits = st.signatureBits()
	}
	err := x.view(func(tx *bolt.Tx) error {
		m := x.readMeta(tx)
		if !m.loading {
			s.Docs = int(m.count)
			s.Empty = len(x.appendExact(nil, tx, tx.Bucket(bucketDocs).Cursor(), emptyText))
		}
		s.SchemaVersion = int(binary.BigEndian.Uint32(tx.Bucket(bucketMeta).Get(keyVersion)))
		if st.MinHash {
			s.RecentBands = int(m.next - m.bandsFrom)
		}
		s.RecentTables = int(m.next - m.tablesFrom)
		s.DataBytes = tx.Size()
		if tm := x.mirror.Load(); tm != nil {
			s.TableMirrorBytes = int64(len(tm.mem))
			s.TableMirrorInUse = x.mirrorFor(tx) != nil
		}
		bs := tx.Bucket(bucketTables).Stats()
		s.TableBytes = int64(bs.BranchAlloc + bs.LeafAlloc)
		if b := tx.Bucket(bucketSets); b != nil && !m.loading {
			ss := b.Stats()
			s.SetHashes = ss.KeyN
			s.SetBytes = int64(ss.BranchAlloc + ss.LeafAlloc)
		}
		return nil
	})
	if err != nil {
		return Stats{}, boltErr(err)
	}
	if fi, err := os.Stat(x.path); err == nil {
		s.FileBytes = fi.Size()
	}
	if s.Docs > 0 {
		s.BytesPerDoc = float64(s.DataBytes) / float64(s.Docs)
		if s.Tables > 0 {
			s.TableBytesPerDoc = float64(s.TableBytes) / float64(s.Docs) / float64(s.Tables)
		}
	}
	return s, nil
}

// BucketStats is what one bucket of the index file holds.
type BucketStats struct {
	// Name is the bucket's name: docs (the records), ids, exact, tables,
	// bands, sets, shingles, meta (and loading during a bulk load).
	Name string `json:"name"`

	// Keys is the number of keys.
	Keys int `json:"keys"`

	// Bytes is the size of its pages, and InUse the bytes of them in use
	// (keys, values and page headers).
	Bytes int64 `json:"bytes"`
	InUse int64 `json:"in_use"`

	// BytesPerDoc is Bytes over the documents of the index (0 when
	// empty).
	BytesPerDoc float64 `json:"bytes_per_doc"`
}

// BucketStats returns the size of each bucket of the index file, in the
// order of their names. It reads every page of the index: it costs a read
// of the whole file.
func (x *Index) BucketStats() ([]BucketStats, error) {
	if err := x.checkOpen(); err != nil {
		return nil, err
	}
	if err := x.settle(); err != nil {
		return nil, err
	}
	var out []BucketStats
	err := x.view(func(tx *bolt.Tx) error {
		m := x.readMeta(tx)
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			bs := b.Stats()
			s := BucketStats{Name: string(name), Keys: bs.KeyN,
				Bytes: int64(bs.BranchAlloc + bs.LeafAlloc), InUse: int64(bs.BranchInuse + bs.LeafInuse)}
			if m.count > 0 {
				s.BytesPerDoc = float64(s.Bytes) / float64(m.count)
			}
			out = append(out, s)
			return nil
		})
	})
	if err != nil {
		return nil, boltErr(err)
	}
	return out, nil
}
