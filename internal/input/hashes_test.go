package input

import (
	"strings"
	"testing"
)

func TestParseHashLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		id   string
		fp   uint64
		err  string
	}{
		{"0123456789abcdef  gamma", "gamma", 0x0123456789abcdef, ""},
		{"0123456789abcdef  1", "1", 0x0123456789abcdef, ""},
		{"0123456789ABCDEF  my file 12", "my file 12", 0x0123456789abcdef, ""},
		{"0123456789abcdef   lead and trail ", " lead and trail ", 0x0123456789abcdef, ""},
		{"alpha 00000000000000ff", "alpha", 0xff, ""},
		{"beta\t0xfe", "beta", 0xfe, ""},
		{"  my file 12  ", "my file", 0x12, ""},
		{"0123456789abcdef 12", "0123456789abcdef", 0x12, ""},
		{"0123456789abcdef  ", "", 0, "no ID after the fingerprint"},
		{"0123456789abcdef gamma", "", 0, "two spaces before the ID"},
		{`\0123456789abcdef  a\\b\nc\rd`, "a\\b\nc\rd", 0x0123456789abcdef, ""},
		{`\0123456789abcdef  tab\there`, "", 0, `has \t; only`},
		{`\0123456789abcdef  end\`, "", 0, "ends in a lone backslash"},
		{"0123456789abcdef  a\\b", "a\\b", 0x0123456789abcdef, ""},
		{"# not a hash", "", 0, "want an ID and a hexadecimal fingerprint"},
		{"alpha 00000000000000fff", "", 0, "want an ID and a hexadecimal fingerprint"},
	} {
		id, fp, err := ParseHashLine(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseHashLine(%q): error %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || id != tc.id || fp != tc.fp {
			t.Errorf("ParseHashLine(%q) = %q, %x, %v; want %q, %x", tc.line, id, fp, err, tc.id, tc.fp)
		}
	}
}
