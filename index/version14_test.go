package index_test

import "testing"

// TestUpgradeVersion14 opens a copy of testdata/v14.simidx, a file written
// by schema version 14 (frozen), made as v13.simidx is (its texts short-c
// and short-d Russian): band groups of about 16 hashes at the expected
// size, with band hashes of 40 bits (Settings.groups16), where schema 15
// makes groups of about 64 and hashes of 38 bits. testdata/v14-pairs.txt
// holds its pairs as schema 14 found them. It opens the file read-only and
// then for writing (upgradeFrozen): its band groups keep their width and
// hashes, read and written as schema 14 did, and so does a new index made
// with its settings (TestGroups16Kept checks the groups themselves).
func TestUpgradeVersion14(t *testing.T) {
	t.Parallel()
	upgradeFrozen(t, "v14", 14, 2)
}
