package index

import "time"

// Limits on what can be stored.
const (
	// MaxIDLen is the longest document ID, in bytes.
	MaxIDLen = 512

	// MaxDocSize is the largest document text, in bytes.
	MaxDocSize = 16 << 20

	// MaxMaxDistance is the largest Hamming distance an index can be built
	// for (Settings.MaxDistance).
	MaxMaxDistance = 8

	// SchemaVersion is the on-disk schema version this package writes.
	// Open refuses indexes with a newer version (ErrVersion).
	SchemaVersion = 15
)

// ZeroDistance asks for Hamming distance 0 where a zero value would select a
// default: in Settings.MaxDistance (build the index for identical
// fingerprints only) and in QueryOptions.MaxDistance (report identical
// fingerprints only).
const ZeroDistance = -1

// NoShortLayer in Settings.ShortUnits leaves out the short-text layer.
const NoShortLayer = -1

// MaxShortUnits is the largest Settings.ShortUnits.
const MaxShortUnits = 254

// Default settings used when Options.Settings is nil or a field is zero.
const (
	DefaultMaxDistance  = 3
	DefaultExpectedDocs = 1_000_000
	DefaultMinHashK     = 84
	DefaultBands        = 14
	DefaultShortUnits   = 60
	DefaultShortBands   = 20
	DefaultShortRows    = 3
	DefaultTimeout      = time.Second
)

// Options configure Open. A nil *Options means the zero Options, whose
// fields all select documented defaults.
type Options struct {
	// ReadOnly opens the index with a shared lock: any number of read-only
	// processes may open it together, but no writer. Writes fail with
	// ErrReadOnly. The file must exist.
	ReadOnly bool

	// Timeout is how long Open waits for the file lock before failing with
	// ErrLocked. Zero means DefaultTimeout (1s); a negative value means
	// fail at once.
	Timeout time.Duration

	// Settings are used when Open creates a new index; nil means
	// DefaultSettings. When the index exists, its stored settings are used,
	// and any field set here (non-zero) that differs from them makes Open
	// fail with an error wrapping ErrSettings.
	Settings *Settings

	// NoSync skips the fsync after each commit. A crash of the process
	// still leaves a consistent index, but a crash of the machine may lose
	// or corrupt recent commits. It speeds up bulk loads on slow disks.
	NoSync bool

	// BandFilter keeps an in-memory Bloom filter of the MinHash band
	// postings and of the exact-text hashes, so that a query skips the
	// lookup of a band no stored document has (most of a new document's
	// 14 bands) and of the exact copies of a text no stored document has
	// (most texts). It is for long-running processes that answer many
	// queries (simidx serve): Open then scans the keys of the band
	// postings and the exact hashes, and the filter takes 1.5 bytes per
	// key of capacity: room for (Bands+1)*1.5*Len() keys with the MinHash
	// layer, 1.5*Len() without it, or for 1.5 times the keys the index
	// holds when that is less than a quarter of it (a document added by
	// fingerprint has no keys), allocated briefly at Open all the same;
	// doubled as more keys are added.
	BandFilter bool

	// TableMirror keeps a copy of the permuted tables in memory, so that
	// a query reads each table's group with a binary search instead of a
	// B+tree descent into the index file, a cache miss per level: for
	// long-running processes that answer many queries (simidx serve). The
	// copy takes the size of the tables (about 10 bytes per document and
	// table: 40 MB per million documents with the default 4 tables),
	// outside the Go heap on Unix so that it does not raise the garbage
	// collector's heap goal, and is
	// made at Open (a scan of the tables), and again when a merge of the
	// in-memory levels has written the tables and after every Load. From
	// the first table slice of a merge until then, and after a replace or
	// delete of a document below the table watermark (which changes the
	// tables in the file) until the next merge, queries read the file, as
	// without the copy. With a small RecentBands (or < 0), which merges
	// every few commits, each merge copies the tables again.
	TableMirror bool

	// RecentBands is the number of added documents whose permuted-table
	// entries and MinHash band postings are kept in memory, and in the
	// documents' records, before they are merged into the index file's
	// tables and band postings in one sorted pass. A document's entries
	// (one per table) and 14 band keys fall at random among all the
	// others, so writing them at every commit rewrites a page per entry
	// and key; a merge rewrites each page once for all of them. Zero
	// means the default: an eighth of the index, at least 65,536
	// documents. The commit that passes the limit starts a merge (about
	// a rewrite of the tables and band postings), which the commits that
	// follow run one slice each, a table or a band per slice, so that no
	// commit waits for a whole merge. A negative value merges all of it
	// after every commit. Open rebuilds the levels from the records (a
	// read of each record in them).
	RecentBands int

	// Log tunes the write path of Add, AddIfUnique and Delete: the
	// write-ahead log by default, or one synced commit per call. Nil
	// selects the defaults; see LogOptions.
	Log *LogOptions
}

// timeout returns the lock timeout Open passes to bbolt.
func (o *Options) timeout() time.Duration {
	switch {
	case o == nil || o.Timeout == 0:
		return DefaultTimeout
	case o.Timeout < 0:
		return time.Nanosecond
	}
	return o.Timeout
}
