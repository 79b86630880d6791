package jsondoc

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is the deepest nesting of arrays and objects that encoding/json
// accepts: a value nested deeper is invalid JSON to it.
const maxDepth = 10000

// Document reads a line of JSON lines in one pass: it checks that line is
// valid JSON, as json.Valid does (nested at most 10,000 levels deep; a
// byte that is not UTF-8 is valid within a string), and that it is an
// object, and returns the value as written of its field idName and the
// value of its field textName, a string decoded as encoding/json decodes
// it (a byte that is not UTF-8, or a lone UTF-16 surrogate, becomes
// U+FFFD) into a new slice. A field's name is compared, decoded, with
// idName and textName exactly; of a name given twice, the last field
// counts, as when encoding/json decodes the object into a map. idName and
// textName may be the same.
//
// ok is false if line is not valid JSON, not an object, lacks either
// field, or if its text field is not a string: the caller may decode it
// otherwise to say why.
//
// It costs one pass over line, in which the text is checked, decoded and
// its closing quote found at once (runs without escapes copied whole, into
// a scratch buffer of up to 1 MiB reused from call to call; a text that
// with the rest of its line takes more than that is searched for its
// closing quote first, and decoded into a slice of its own), plus a
// copy of the decoded text and a check of a text beyond ASCII as UTF-8;
// and no allocation but the text's, at most twice its decoded size, the
// scratch buffer's when it grows, and a name's with escapes longer than 64
// bytes or a stack of arrays and objects nested deeper than 64 levels.
func Document(line []byte, idName, textName string) (rawID, text []byte, ok bool) {
	var hasID, hasText bool
	i := SkipSpace(line, 0)
	if i == len(line) || line[i] != '{' {
		return nil, nil, false
	}
	i = SkipSpace(line, i+1)
	for {
		if i == len(line) || line[i] != '"' {
			return nil, nil, false // "}" too: an empty object lacks the fields
		}
		k, ok := scanString(line, i)
		if !ok {
			return nil, nil, false
		}
		isID, isText := matchName(line[i+1:k.end-1], k, idName, textName)
		i = SkipSpace(line, k.end)
		if i == len(line) || line[i] != ':' {
			return nil, nil, false
		}
		i = SkipSpace(line, i+1)
		if i == len(line) {
			return nil, nil, false
		}
		start := i
		switch {
		case line[i] == '"' && isText:
			if i, text, ok = decodeString(line, i); !ok {
				return nil, nil, false
			}
			hasText = true
		case line[i] == '"':
			v, ok := scanString(line, i)
			if !ok {
				return nil, nil, false
			}
			i = v.end
		default:
			if isText {
				text, hasText = nil, false // unless a later field of the name is a string
			}
			if i, ok = skipValue(line, i, 1); !ok {
				return nil, nil, false
			}
		}
		if isID {
			rawID, hasID = line[start:i], true
		}
		i = SkipSpace(line, i)
		if i == len(line) {
			return nil, nil, false
		}
		if line[i] == '}' {
			break
		}
		if line[i] != ',' {
			return nil, nil, false
		}
		i = SkipSpace(line, i+1)
	}
	if SkipSpace(line, i+1) != len(line) || !hasID || !hasText {
		return nil, nil, false
	}
	return rawID, text, true
}

// decodeString checks the JSON string at b[i], which is a quote, and
// decodes it into a new slice, as encoding/json decodes it, whose capacity
// is at most twice its length; end is the index after it.
//
// When the rest of b is at most maxScratch bytes, one pass decodes the
// string and finds its closing quote, into a scratch buffer that rest
// fits in (nothing decodes to more bytes than it takes), and the string is
// copied out. A longer rest, whose string may be short (a text before a
// large field), is searched for the closing quote first and the string
// decoded into a new slice of its size as written. A string beyond ASCII
// is then checked as UTF-8, and one that is not is decoded again with
// each invalid byte as U+FFFD.
func decodeString(b []byte, i int) (end int, s []byte, ok bool) {
	rest := b[i+1:]
	var n, q int
	var high bool
	if len(rest) <= maxScratch {
		bp := scratch.Get().(*[]byte)
		if cap(*bp) < len(rest) {
			*bp = make([]byte, min(max(len(rest), 2*cap(*bp)), maxScratch))
		}
		n, q, high, ok = unquoteInto((*bp)[:len(rest)], rest)
		if ok && (!high || utf8.Valid(rest[:q])) {
			s, high = append(make([]byte, 0, n), (*bp)[:n]...), false
		}
		scratch.Put(bp)
	} else {
		j, found := closingQuote(b, i)
		if !found {
			return i, nil, false
		}
		q = j - (i + 1)
		d := make([]byte, q+1)
		n, _, high, ok = unquoteInto(d, rest[:q+1])
		if ok && (!high || utf8.Valid(rest[:q])) {
			s, high = d[:n], false
		}
	}
	if !ok {
		return i, nil, false
	}
	if high { // not UTF-8
		raw := rest[:q]
		s, _, _ = unquoteChecked(make([]byte, 0, len(raw)+len(raw)/2), raw, true)
	}
	if len(s) < cap(s)/2 {
		s = append(make([]byte, 0, len(s)), s...)
	}
	return i + 1 + q + 1, s, true
}

// maxScratch is the longest rest of a line decodeString decodes into a
// scratch buffer: the buffers kept in scratch are no longer.
const maxScratch = 1 << 20

// scratch holds the buffers decodeString decodes into, as *[]byte.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// closingQuote returns the index of the quote that closes the JSON string
// at b[i], if the string is valid: the first quote after b[i] that is not
// escaped, after an even number of backslashes. It costs a search of the
// quotes of the string.
func closingQuote(b []byte, i int) (int, bool) {
	for j := i + 1; ; j++ {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		n := 0
		for b[j-1-n] == '\\' { // b[i] is a quote
			n++
		}
		if n%2 == 0 {
			return j, true
		}
	}
}

// unquoteChecked appends to dst the bytes s between the quotes of a JSON
// string, decoded as encoding/json decodes them; ok is false if they are
// not valid JSON. fix says s is not valid UTF-8, and that each byte that
// is not UTF-8 is to become U+FFFD. high says s holds bytes of 0x80 or
// more. It costs one pass over s; runs without escapes are copied whole.
// The texts of documents take unquoteInto, faster; this one decodes the
// rest (names with escapes, texts that are not UTF-8).
func unquoteChecked(dst, s []byte, fix bool) (_ []byte, high, ok bool) {
	var or uint64 // the bytes of the runs without escapes, or'ed
	for {
		n, o := plainPrefix(s)
		or |= o
		dst = appendRun(dst, s[:n], fix)
		s = s[n:]
		if len(s) == 0 {
			return dst, or&highs != 0, true
		}
		if s[0] != '\\' { // a quote or a control character
			return dst, false, false
		}
		// Escapes come in runs, as in text with every letter escaped.
		for len(s) > 0 && s[0] == '\\' {
			if len(s) < 2 {
				return dst, false, false
			}
			if c := s[1]; c != 'u' {
				e := unescaped[c]
				if e == 0 {
					return dst, false, false
				}
				dst = append(dst, e)
				s = s[2:]
				continue
			}
			r, n := unescapeU(s)
			if n == 0 {
				return dst, false, false
			}
			s = s[n:]
			dst = utf8.AppendRune(dst, r)
		}
	}
}

// unescapeU decodes the \u escape at the start of s, taking the escape of
// a low surrogate after that of a high one with it: the rune, U+FFFD for
// a surrogate not in a pair (what follows it is read on its own), and
// the bytes it takes, 6 or 12; n is 0 if s does not start with a valid \u
// escape.
func unescapeU(s []byte) (r rune, n int) {
	if len(s) < 6 {
		return 0, 0
	}
	if r = hex4(s[2:6]); r < 0 {
		return 0, 0
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	r2 := rune(-1)
	if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
		r2 = hex4(s[8:12]) // checked as the next escape if not a pair
	}
	if r = utf16.DecodeRune(r, r2); r != utf8.RuneError {
		return r, 12
	}
	return utf8.RuneError, 6
}

// unquoteInto decodes the JSON string s begins, up to its closing
// quote, as unquoteChecked does without fix, into d, which is at least as
// long as s; n is the length of the string decoded into d and q the index
// of the closing quote in s; ok is false if s holds no valid string up to
// a closing quote. Each run without escapes is checked and copied in one
// pass, 8 bytes at a time: a word is stored before it is checked, which
// d's length allows, as nothing decodes to more bytes than it takes in s.
// d must not overlap s.
func unquoteInto(d, s []byte) (n, q int, high, ok bool) {
	d = d[:len(s)]
	var or uint64 // the bytes of the runs without escapes, or'ed
	r, w := 0, 0  // read from s[r], written to d[w]; w <= r
	for {
		hit := false
		for r+8 <= len(s) {
			x := binary.LittleEndian.Uint64(s[r:])
			binary.LittleEndian.PutUint64(d[w:], x)
			if m := special(x); m != 0 {
				k := bits.TrailingZeros64(m) / 8
				or |= x & (1<<(8*k) - 1)
				r, w = r+k, w+k
				hit = true
				break
			}
			or |= x
			r, w = r+8, w+8
		}
		if !hit {
			for r < len(s) && s[r] >= 0x20 && s[r] != '"' && s[r] != '\\' {
				or |= uint64(s[r])
				d[w] = s[r]
				r, w = r+1, w+1
			}
			if r == len(s) {
				return 0, 0, false, false // no closing quote
			}
		}
		if s[r] == '"' {
			return w, r, or&highs != 0, true
		}
		if s[r] != '\\' { // a control character
			return 0, 0, false, false
		}
		// Escapes come in runs, as in text with every letter escaped.
		for r < len(s) && s[r] == '\\' {
			if r+1 == len(s) {
				return 0, 0, false, false
			}
			if c := s[r+1]; c != 'u' {
				e := unescaped[c]
				if e == 0 {
					return 0, 0, false, false
				}
				d[w] = e
				r, w = r+2, w+1
				continue
			}
			// The runes of one to three bytes here, as most text escaped
			// as \uXXXX is; surrogates by unescapeU.
			if r+6 > len(s) {
				return 0, 0, false, false
			}
			switch c := hex4(s[r+2 : r+6]); {
			case c < 0:
				return 0, 0, false, false
			case c < utf8.RuneSelf:
				d[w] = byte(c)
				r, w = r+6, w+1
			case c < 0x800:
				d[w], d[w+1] = 0xc0|byte(c>>6), 0x80|byte(c)&0x3f
				r, w = r+6, w+2
			case !utf16.IsSurrogate(c):
				d[w], d[w+1], d[w+2] = 0xe0|byte(c>>12), 0x80|byte(c>>6)&0x3f, 0x80|byte(c)&0x3f
				r, w = r+6, w+3
			default:
				c, size := unescapeU(s[r:])
				r += size
				w += utf8.EncodeRune(d[w:], c)
			}
		}
		if r == len(s) {
			return 0, 0, false, false // no closing quote
		}
	}
}

// matchName reports whether the name of a field, k the bytes between its
// quotes, is idName and whether it is textName.
func matchName(k []byte, ks str, idName, textName string) (isID, isText bool) {
	if !ks.esc && (!ks.high || utf8.Valid(k)) {
		return string(k) == idName, string(k) == textName
	}
	var buf [64]byte
	name, _, _ := unquoteChecked(buf[:0], k, ks.high && !utf8.Valid(k))
	return string(name) == idName, string(name) == textName
}

// str describes a JSON string as scanString read it.
type str struct {
	end  int  // the index after its closing quote
	esc  bool // it holds escapes
	high bool // it holds bytes of 0x80 or more
}

// Masks of the bytes of a 64-bit word, for finding bytes in 8 at a time.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special returns a word with the high bit set of the first byte of x (the
// lowest), and perhaps of later ones, that ends a run of bytes a JSON
// string holds as they are: a quote, a backslash, or a control character;
// 0 if there is none.
func special(x uint64) uint64 {
	q := x ^ ('"' * ones)
	bs := x ^ ('\\' * ones)
	return ((x - 0x20*ones) | (q - ones) | (bs - ones)) &^ x & highs
}

// plainPrefix returns the length of the longest prefix of b without a
// quote, a backslash or a control character, and its bytes or'ed. It
// reads 8 bytes at a time, then the last few one by one.
func plainPrefix(b []byte) (n int, or uint64) {
	for n+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[n:])
		if m := special(x); m != 0 {
			k := bits.TrailingZeros64(m) / 8
			return n + k, or | x&(1<<(8*k)-1)
		}
		or |= x
		n += 8
	}
	for n < len(b) && b[n] >= 0x20 && b[n] != '"' && b[n] != '\\' {
		or |= uint64(b[n])
		n++
	}
	return n, or
}

// scanString checks the JSON string at b[i], which is a quote, and
// describes it; ok is false if it is not valid JSON. It costs one pass
// over the string, 8 bytes at a time between escapes.
func scanString(b []byte, i int) (s str, ok bool) {
	j := i + 1
	var or uint64 // the bytes seen outside escapes, or'ed
	for {
		n, o := plainPrefix(b[j:])
		or |= o
		j += n
		if j == len(b) {
			return s, false
		}
		switch c := b[j]; {
		case c == '"':
			s.end = j + 1
			s.high = or&highs != 0
			return s, true
		case c == '\\':
			s.esc = true
			// Escapes come in runs, as in text with every letter escaped.
			for j < len(b) && b[j] == '\\' {
				if j+1 == len(b) {
					return s, false
				}
				switch b[j+1] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					j += 2
					continue
				case 'u':
				default:
					return s, false
				}
				if j+6 > len(b) {
					return s, false
				}
				if hex4(b[j+2:j+6]) < 0 {
					return s, false
				}
				j += 6
			}
		default: // a control character
			return s, false
		}
	}
}

// hexValue maps a byte to its value as a hexadecimal digit, or to 0xff.
var hexValue = func() (t [256]byte) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = byte(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			t[c] = byte(c - 'A' + 10)
		default:
			t[c] = 0xff
		}
	}
	return t
}()

// hex4 returns the value of the 4 hexadecimal digits of b, or -1.
func hex4(b []byte) rune {
	_ = b[3]
	h0, h1, h2, h3 := hexValue[b[0]], hexValue[b[1]], hexValue[b[2]], hexValue[b[3]]
	if (h0|h1|h2|h3)&0xf0 != 0 {
		return -1
	}
	return rune(h0)<<12 | rune(h1)<<8 | rune(h2)<<4 | rune(h3)
}

// unescaped maps the letter of an escape other than \u to its byte.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// appendRun appends to dst the bytes of s, each byte that is not UTF-8
// replaced with U+FFFD if fix is set.
func appendRun(dst, s []byte, fix bool) []byte {
	if !fix {
		return append(dst, s...)
	}
	for len(s) > 0 {
		if s[0] < utf8.RuneSelf {
			dst = append(dst, s[0])
			s = s[1:]
			continue
		}
		r, n := utf8.DecodeRune(s)
		if r == utf8.RuneError && n == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[:n]...)
		}
		s = s[n:]
	}
	return dst
}

// skipValue checks the JSON value at b[i], which is not white space,
// nested within depth arrays and objects, and returns the index after it;
// ok is false if it is not valid JSON. It costs one pass over the value.
func skipValue(b []byte, i, depth int) (end int, ok bool) {
	var small [64]byte
	open := small[:0] // the arrays and objects the value holds at i: '[' or '{'
	for {
		// A value starts at b[i].
		if i == len(b) {
			return i, false
		}
		switch c := b[i]; c {
		case '"':
			s, ok := scanString(b, i)
			if !ok {
				return i, false
			}
			i = s.end
		case '{', '[':
			if depth+len(open) >= maxDepth {
				return i, false
			}
			open = append(open, c)
			i = SkipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' or ']'
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				if i, ok = skipName(b, i); !ok {
					return i, false
				}
			}
			continue
		case 't':
			if i, ok = skipLiteral(b, i, "true"); !ok {
				return i, false
			}
		case 'f':
			if i, ok = skipLiteral(b, i, "false"); !ok {
				return i, false
			}
		case 'n':
			if i, ok = skipLiteral(b, i, "null"); !ok {
				return i, false
			}
		default:
			if i, ok = skipNumber(b, i); !ok {
				return i, false
			}
		}
		// A value ends at b[i]: what follows it in the arrays and
		// objects that hold it.
		for {
			if len(open) == 0 {
				return i, true
			}
			i = SkipSpace(b, i)
			if i == len(b) {
				return i, false
			}
			c := open[len(open)-1]
			if b[i] == c+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return i, false
			}
			i = SkipSpace(b, i+1)
			if c == '{' {
				if i, ok = skipName(b, i); !ok {
					return i, false
				}
			}
			break
		}
	}
}

// skipName checks the name of a field at b[i], its colon and the white
// space around it, and returns the index of its value.
func skipName(b []byte, i int) (int, bool) {
	if i == len(b) || b[i] != '"' {
		return i, false
	}
	s, ok := scanString(b, i)
	if !ok {
		return i, false
	}
	i = SkipSpace(b, s.end)
	if i == len(b) || b[i] != ':' {
		return i, false
	}
	return SkipSpace(b, i+1), true
}

// skipLiteral checks that b holds lit at i, and returns the index after it.
func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// skipNumber checks the JSON number at b[i], and returns the index after
// it. What follows is checked by the caller: "01" is the number 0 and a 1.
func skipNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i == len(b):
		return i, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

// skipDigits returns the index of the first byte of b at or after i that
// is not a decimal digit.
func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
