package input

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseHashLine parses a line of --input hashes. A line that starts with
// exactly 16 hex digits and two spaces is "HEX  ID", as printed by simidx
// fingerprint (md5sum's layout): the ID is the rest of the line, as it is.
// Any other line is "ID HEX": an ID, white space and a fingerprint of 1 to 16
// hex digits (0x optional), the last word of the line.
//
// As in GNU md5sum's output, a line "\HEX  ID" has an escaped ID: \\ stands
// for a backslash, \n for a newline and \r for a carriage return.
func ParseHashLine(line string) (string, uint64, error) {
	if len(line) >= 19 && line[0] == '\\' && line[17:19] == "  " && isHex(line[1:17]) {
		fp, _ := ParseHex(line[1:17])
		id, err := unescapeName(line[19:])
		if err != nil {
			return "", 0, err
		}
		if id == "" {
			return "", 0, fmt.Errorf("no ID after the fingerprint %s", line[1:17])
		}
		return id, fp, nil
	}
	if len(line) >= 18 && line[16:18] == "  " && isHex(line[:16]) {
		fp, _ := ParseHex(line[:16])
		id := line[18:]
		if id == "" {
			return "", 0, fmt.Errorf("no ID after the fingerprint %s", line[:16])
		}
		return id, fp, nil
	}
	line = strings.TrimSpace(line)
	if i := strings.LastIndexAny(line, " \t"); i > 0 {
		if fp, ok := ParseHex(line[i+1:]); ok {
			return strings.TrimSpace(line[:i]), fp, nil
		}
	}
	if len(line) > 16 && isHex(line[:16]) && (line[16] == ' ' || line[16] == '\t') {
		return "", 0, fmt.Errorf("want ID HEX, or HEX and two spaces before the ID as simidx fingerprint prints them, got %q", truncate(line, 60))
	}
	return "", 0, fmt.Errorf("want an ID and a hexadecimal fingerprint, got %q", truncate(line, 60))
}

// unescapeName undoes the escapes of a name in md5sum's layout (see
// hashLine).
func unescapeName(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i++; i == len(s) {
			return "", fmt.Errorf("escaped ID %q ends in a lone backslash", truncate(s, 60))
		}
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", fmt.Errorf("escaped ID %q has \\%c; only \\\\, \\n and \\r are escapes", truncate(s, 60), s[i])
		}
	}
	return b.String(), nil
}

// isHex reports whether s is made of hex digits only.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

func ParseHex(s string) (uint64, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if s == "" || len(s) > 16 {
		return 0, false
	}
	fp, err := strconv.ParseUint(s, 16, 64)
	return fp, err == nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
