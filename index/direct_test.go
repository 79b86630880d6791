package index_test

import "github.com/simidx/simidx/index"

// directLog makes Add and Delete commit to the file at once, for the tests
// of the file's levels, merges and copies.
var directLog = &index.LogOptions{Direct: true}
