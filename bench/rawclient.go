package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// rawTimeout is the default bound on one exchange: a server that stops
// answering fails the request instead of hanging the load test.
const rawTimeout = 30 * time.Second

// rawClient is a minimal HTTP/1.1 client on one keep-alive connection, for
// the load test's clients: a request is written whole in one write, and
// the answer read by its Content-Length or its chunks. It spends a fraction
// of the CPU of net/http's client per request, as wrk does, so that on two
// cores shared with the server the load test measures the server rather
// than its clients. It is not safe for concurrent use.
type rawClient struct {
	host    string        // host:port
	timeout time.Duration // the most one exchange may take
	conn    net.Conn
	br      *bufio.Reader
	req     []byte
	resp    []byte
}

// newRawClient returns a client of the server at base, http://host:port.
func newRawClient(base string) (*rawClient, error) {
	host, ok := strings.CutPrefix(base, "http://")
	if !ok || host == "" || strings.Contains(host, "/") {
		return nil, fmt.Errorf("raw client: %q is not http://host:port", base)
	}
	return &rawClient{host: host, timeout: rawTimeout}, nil
}

// post sends body to path and returns the answer's body, valid until the
// next call, or an error unless the status is 200 or 204. A connection that
// fails, or that the server closes, is dialled again on the next call.
func (c *rawClient) post(path string, body []byte) ([]byte, error) {
	if c.conn == nil {
		conn, err := net.Dial("tcp", c.host)
		if err != nil {
			return nil, err
		}
		c.conn, c.br = conn, bufio.NewReaderSize(conn, 16<<10)
	}
	c.req = append(c.req[:0], "POST "...)
	c.req = append(c.req, path...)
	c.req = append(c.req, " HTTP/1.1\r\nHost: "...)
	c.req = append(c.req, c.host...)
	c.req = append(c.req, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	c.req = strconv.AppendInt(c.req, int64(len(body)), 10)
	c.req = append(c.req, "\r\n\r\n"...)
	c.req = append(c.req, body...)
	status, closeAfter, err := c.exchange()
	if err != nil || closeAfter {
		c.conn.Close()
		c.conn = nil
	}
	if err != nil {
		return nil, err
	}
	if status != 200 && status != 204 {
		return nil, fmt.Errorf("status %d: %s", status, bytes.TrimSpace(c.resp))
	}
	return c.resp, nil
}

var errMalformed = errors.New("raw client: malformed answer")

// exchange writes c.req and reads the answer into c.resp.
func (c *rawClient) exchange() (status int, closeAfter bool, err error) {
	if err := c.conn.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, false, err
	}
	if _, err := c.conn.Write(c.req); err != nil {
		return 0, false, err
	}
	line, err := c.line()
	if err != nil {
		return 0, false, err
	}
	// HTTP/1.1 200 OK
	proto, rest, ok := strings.Cut(line, " ")
	if !ok || !strings.HasPrefix(proto, "HTTP/1.") || len(rest) < 3 {
		return 0, false, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	if status, err = strconv.Atoi(rest[:3]); err != nil {
		return 0, false, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	length, chunked := -1, false
	for {
		line, err := c.line()
		if err != nil {
			return 0, false, err
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return 0, false, fmt.Errorf("%w: header %q", errMalformed, line)
		}
		value = strings.TrimSpace(value)
		switch {
		case strings.EqualFold(name, "Content-Length"):
			if length, err = strconv.Atoi(value); err != nil || length < 0 {
				return 0, false, fmt.Errorf("%w: header %q", errMalformed, line)
			}
		case strings.EqualFold(name, "Transfer-Encoding"):
			chunked = strings.EqualFold(value, "chunked")
		case strings.EqualFold(name, "Connection"):
			closeAfter = strings.EqualFold(value, "close")
		}
	}
	c.resp = c.resp[:0]
	switch {
	case status/100 == 1 || status == 204 || status == 304:
		// No body, whatever the headers say (RFC 9112, section 6.3).
	case chunked:
		for {
			line, err := c.line()
			if err != nil {
				return 0, false, err
			}
			size, _, _ := strings.Cut(line, ";")
			n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 32)
			if err != nil || n < 0 {
				return 0, false, fmt.Errorf("%w: chunk size %q", errMalformed, line)
			}
			if n == 0 {
				// Trailers, if any, end with an empty line.
				for {
					if line, err = c.line(); err != nil || line == "" {
						return status, closeAfter, err
					}
				}
			}
			if err := c.read(int(n)); err != nil {
				return 0, false, err
			}
			if line, err = c.line(); err != nil || line != "" {
				return 0, false, fmt.Errorf("%w: no line end after a chunk", errMalformed)
			}
		}
	case length >= 0:
		if err := c.read(length); err != nil {
			return 0, false, err
		}
	default:
		// No length: the body runs to the end of the connection.
		b, err := io.ReadAll(c.br)
		if err != nil {
			return 0, false, err
		}
		c.resp = append(c.resp, b...)
		closeAfter = true
	}
	return status, closeAfter, nil
}

// line reads a line without its CRLF.
func (c *rawClient) line() (string, error) {
	b, err := c.br.ReadSlice('\n')
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return "", err
	}
	return string(bytes.TrimRight(b, "\r\n")), nil
}

// read appends n bytes of the answer to c.resp.
func (c *rawClient) read(n int) error {
	start := len(c.resp)
	c.resp = append(c.resp, make([]byte, n)...)
	_, err := io.ReadFull(c.br, c.resp[start:])
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// close closes the connection.
func (c *rawClient) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}
