package keep

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/usage"
)

func TestKept(t *testing.T) {
	c := index.Cluster{Number: 3, Members: []index.Member{
		{ID: "m", Seq: 5}, {ID: "b", Seq: 2}, {ID: "z", Seq: 9}, {ID: "k", Seq: 7},
	}}
	sizes := map[string]int64{"m": 10, "b": 30, "z": 5, "k": 30}
	for policy, want := range map[string]string{First: "b", Last: "z", ID: "b", Longest: "b", Shortest: "z"} {
		got, err := Kept(c, policy, sizes)
		if err != nil || got.ID != want {
			t.Errorf("Kept(%s) = %s, %v; want %s", policy, got.ID, err, want)
		}
	}
	delete(sizes, "k")
	if _, err := Kept(c, Longest, sizes); err == nil || !strings.Contains(err.Error(), `"k" of cluster 3 was not read`) {
		t.Errorf("a member without a size: %v", err)
	}
	if got, err := Kept(c, First, nil); err != nil || got.ID != "b" {
		t.Errorf("Kept(first) without sizes = %s, %v", got.ID, err)
	}
}

// TestWriteRecords checks that the lines of the documents kept are copied
// as read, in reading order, a last line without a line end given one.
func TestWriteRecords(t *testing.T) {
	rd, err := NewDocs(t.TempDir(), true, true)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for _, l := range []struct{ id, raw string }{
		{"a", "{\"id\":\"a\"}\r\n"}, {"b", "b line\n"}, {"c", "  c, as it is  \n"}, {"d", "no line end"},
	} {
		rd.Add(&index.Doc{ID: l.id, Text: []byte(l.raw[:2])}, []byte(l.raw))
	}
	var b bytes.Buffer
	if err := rd.WriteRecords(&b, map[string]bool{"b": true}); err != nil {
		t.Fatal(err)
	}
	if want := "{\"id\":\"a\"}\r\n  c, as it is  \nno line end\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	if s := rd.Sizes(); len(s) != 4 || s["a"] != 2 {
		t.Errorf("Sizes() = %v", s)
	}
	// Read twice: the spool stays.
	b.Reset()
	if err := rd.WriteRecords(&b, nil); err != nil || strings.Count(b.String(), "\n") != 4 {
		t.Errorf("second WriteRecords: %q, %v", b.String(), err)
	}
	rd.Add(&index.Doc{ID: "file.txt"}, nil)
	var ue *usage.Error
	if err := rd.WriteRecords(&b, nil); !errors.As(err, &ue) || !strings.Contains(err.Error(), `"file.txt" was read as a whole file`) {
		t.Errorf("a whole file: %v, want a usage error", err)
	}
}
