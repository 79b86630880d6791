package shingle

import "testing"

// TestHanFoldTable checks the generated table: sorted, idempotent (a folded
// character folds to itself), and from a known Unihan version.
func TestHanFoldTable(t *testing.T) {
	if hanFoldVersion == "" || hanFoldVersion == "unknown" {
		t.Errorf("table has no source version")
	}
	for i, r := range hanFoldFrom {
		if i > 0 && hanFoldFrom[i-1] >= r {
			t.Fatalf("table not sorted at %d", i)
		}
		if foldHan(r) != hanFoldTo[i] {
			t.Fatalf("foldHan(%q) = %q, want %q", r, foldHan(r), hanFoldTo[i])
		}
		if to := hanFoldTo[i]; foldHan(to) != to {
			t.Fatalf("folding is not idempotent: %q -> %q -> %q", r, to, foldHan(to))
		}
	}
	if foldHan('a') != 'a' || foldHan('日') != '日' {
		t.Error("characters without variants must not change")
	}
}
