package shingle

// AppendShingles appends to dst the hash of every shingle of size units of
// the unit hashes (see [Tokenizer.AppendUnits]), starting every step units:
// windows units[i:i+size] for i = 0, step, 2*step, ... as long as a window
// is full. A non-empty sequence shorter than size gives one shingle of all
// its units, so short texts still have a feature; an empty one gives none.
// Shingles keep their order and repeats. Each hash is [Combine] of the
// window. Cost: O(len(units) * size / step).
func AppendShingles(dst, units []uint64, size, step int) []uint64 {
	if size < 1 {
		size = 1
	}
	if step < 1 {
		step = 1
	}
	if len(units) == 0 {
		return dst
	}
	if len(units) < size {
		return append(dst, Combine(units))
	}
	for i := 0; i+size <= len(units); i += step {
		dst = append(dst, Combine(units[i:i+size]))
	}
	return dst
}

// Shingler turns text into shingle hashes with one [Tokenizer]. It reuses
// its buffers and is not safe for concurrent use.
type Shingler struct {
	tok   *Tokenizer
	units []uint64
}

// NewShingler returns a Shingler for opts (nil means the defaults), or an
// error if opts is invalid.
func NewShingler(opts *Options) (*Shingler, error) {
	t, err := NewTokenizer(opts)
	if err != nil {
		return nil, err
	}
	return &Shingler{tok: t}, nil
}

// Options returns the shingler's options with every default made explicit.
func (s *Shingler) Options() Options { return s.tok.opts }

// Tokenizer returns the shingler's tokenizer.
func (s *Shingler) Tokenizer() *Tokenizer { return s.tok }

// AppendHashes appends to dst the hash of every shingle of text, in order
// and with repeats. Cost: O(len(text)); no allocation once the buffers have
// grown.
func (s *Shingler) AppendHashes(dst []uint64, text []byte) []uint64 {
	s.units = s.tok.AppendUnits(s.units[:0], text)
	n := len(dst)
	dst = AppendShingles(dst, s.units, s.tok.opts.Size, s.tok.opts.Step())
	return append(dst[:n], s.tok.opts.SampleHashes(dst[n:])...)
}

// Units returns the unit hashes of the text last given to AppendHashes,
// valid until the next call.
func (s *Shingler) Units() []uint64 { return s.units }
