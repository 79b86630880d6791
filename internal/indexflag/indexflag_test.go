package indexflag

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/usage"
	"github.com/simidx/simidx/shingle"
	"github.com/spf13/pflag"
)

func settings(t *testing.T, args ...string) (*index.Settings, error) {
	t.Helper()
	var s Settings
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	s.AddIndex(fs, true)
	s.AddText(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return s.Build()
}

// TestSettings checks that only the flags given are set, and that a value
// out of range, or a method's flag without the method, is a usage error
// naming the flag.
func TestSettings(t *testing.T) {
	if st, err := settings(t); st != nil || err != nil {
		t.Errorf("no flags: %+v, %v; want nil", st, err)
	}
	st, err := settings(t, "-k", "0", "--no-minhash", "--unit", "chars", "--method", "short", "--words", "7")
	if err != nil {
		t.Fatal(err)
	}
	if st.MaxDistance != index.ZeroDistance || !st.NoMinHash || st.Text.Shingle.Unit != shingle.Chars || st.Text.Method != index.MethodShort || st.Text.Words != 7 || st.ExpectedDocs != 0 {
		t.Errorf("settings %+v", st)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-k", "99"}, "--max-distance must be 0 to"},
		{[]string{"--minhash", "--no-minhash"}, "cannot be used together"},
		{[]string{"--markup", "html"}, "--markup must be auto, strip or keep"},
		{[]string{"--dom-decay", "0"}, "--dom-decay must be in (0, 1]"},
		{[]string{"--sentences", "3"}, "--sentences and --sentence-ends are for --method nshash"},
		{[]string{"--threshold", "0.5"}, "are for --method short"},
	} {
		_, err := settings(t, c.args...)
		var ue *usage.Error
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a usage error with %q", c.args, err, c.want)
		}
	}
}

// TestQuery checks the query options of the flags given, for an index
// of k 3 with the MinHash layer and without shingle sets.
func TestQuery(t *testing.T) {
	x, err := index.Open(filepath.Join(t.TempDir(), "x.db"), &index.Options{Settings: &index.Settings{MaxDistance: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	query := func(args ...string) (*Query, *index.QueryOptions, error) {
		var q Query
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		q.Add(fs, true)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		opts, err := q.Options(x)
		return &q, opts, err
	}
	q, opts, err := query("-k", "0", "--min-similarity", "0", "--limit", "5")
	if err != nil || opts.MaxDistance != index.ZeroDistance || opts.MinSimilarity != index.NoMinSimilarity || opts.Limit != 5 || q.Threshold() {
		t.Errorf("options %+v, %v", opts, err)
	}
	if k, given := q.MaxDistance(); k != 0 || !given {
		t.Errorf("MaxDistance() = %d, %v", k, given)
	}
	if q, _, _ := query("--min-similarity", "0.8"); !q.Threshold() {
		t.Error("--min-similarity 0.8 is no threshold")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-k", "4"}, "-k 4 is more than the 3 bits"},
		{[]string{"--verify"}, "--verify needs the documents' shingle sets"},
		{[]string{"--min-similarity", "2"}, "--min-similarity must be 0 to 1"},
		{[]string{"--limit", "-1"}, "--limit must not be negative"},
	} {
		_, _, err := query(c.args...)
		var ue *usage.Error
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a usage error with %q", c.args, err, c.want)
		}
	}
}
