package boltfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/bits"
)

// bbolt's on-disk format (file format version 2), as far as checking that
// every page bbolt will read lies inside the file needs it. bbolt writes
// its structures in the machine's byte order.
const (
	pageHeaderBytes   = 16 // id u64, flags u16, count u16, overflow u32
	elementBytes      = 16 // a branch or leaf page element
	metaBytes         = 64 // the meta record after a meta page's header
	metaChecksumStart = 56 // the checksum covers the meta record's bytes before it
	bucketHeaderBytes = 16 // root page id u64, sequence u64

	boltMagic   = 0xED0CDAED
	boltVersion = 2
	noFreelist  = ^uint64(0)

	flagBranch   = 0x01
	flagLeaf     = 0x02
	flagFreelist = 0x10
	// bucketLeafFlag marks a leaf element whose value is a bucket.
	bucketLeafFlag = 0x01
	// freelistCountInFirst is a free-list page's count when the real count
	// is the first id slot.
	freelistCountInFirst = 0xFFFF

	// The page sizes accepted: bbolt takes the operating system's page
	// size, which is one of these on every board jibod runs on.
	minPageSize = 1 << 10
	maxPageSize = 64 << 10
)

var order = binary.NativeEndian

// meta is a meta page's record.
type meta struct {
	pageSize uint32
	root     uint64 // the root bucket's root page
	freelist uint64
	pgid     uint64 // the high-water mark: pages in use are below it
	txid     uint64
}

// parseMeta decodes the meta record in b (metaBytes long) and checks its
// magic, version and checksum.
func parseMeta(b []byte) (meta, error) {
	m := meta{
		pageSize: order.Uint32(b[8:]),
		root:     order.Uint64(b[16:]),
		freelist: order.Uint64(b[32:]),
		pgid:     order.Uint64(b[40:]),
		txid:     order.Uint64(b[48:]),
	}
	switch {
	case order.Uint32(b[0:]) != boltMagic:
		return m, errors.New("no bbolt magic number")
	case order.Uint32(b[4:]) != boltVersion:
		return m, fmt.Errorf("format version %d, not %d", order.Uint32(b[4:]), boltVersion)
	}
	h := fnv.New64a()
	_, _ = h.Write(b[:metaChecksumStart])
	if h.Sum64() != order.Uint64(b[metaChecksumStart:]) {
		return m, errors.New("checksum mismatch")
	}
	return m, nil
}

// structureError is damage found in a file's structure before bbolt reads
// it.
type structureError struct{ msg string }

func (e *structureError) Error() string { return e.msg }

// damagef is not inlined: it runs on error paths only, and inlining would
// copy its body into each of its many callers.
//
//go:noinline
func damagef(format string, args ...any) error {
	return &structureError{msg: fmt.Sprintf(format, args...)}
}

// checkStructure checks, by reading r (size bytes), that the file's own
// meta pages are sound and that every page bbolt reads while opening and
// using it (the free list and every page reachable from the root bucket)
// lies inside the file and inside the high-water mark, with its elements
// inside the page. bbolt maps the file into memory and trusts its pages:
// a page past the end of the file is a SIGBUS, which no recover catches.
// Damage is a *structureError; a failed read is returned as it is.
func checkStructure(r io.ReaderAt, size int64) error {
	m, pageSize, err := chooseMeta(r, size)
	if err != nil {
		return err
	}
	ps := uint64(pageSize)
	if m.pgid < 3 {
		return damagef("meta page (txid %d): high-water mark %d is below the first data page", m.txid, m.pgid)
	}
	if m.pgid > uint64(size)/ps {
		return damagef("the file is %d bytes, but its meta page (txid %d) says it holds %d pages of %d bytes (%d bytes): it was cut short",
			size, m.txid, m.pgid, ps, m.pgid*ps)
	}
	c := &checker{r: r, pageSize: ps, hwm: m.pgid, seen: make([]uint64, (m.pgid+63)/64)}
	c.mark(0, 0)
	c.mark(1, 0)
	if m.freelist != noFreelist {
		if err := c.checkFreelist(m.freelist); err != nil {
			return err
		}
	}
	if m.root < 2 || m.root >= m.pgid {
		return damagef("meta page (txid %d): root page %d outside pages 2..%d", m.txid, m.root, m.pgid-1)
	}
	return c.page(m.root, "the root bucket")
}

// chooseMeta finds the page size and the meta page bbolt would use: of
// the two meta pages, the valid one with the higher transaction id.
func chooseMeta(r io.ReaderAt, size int64) (meta, int, error) {
	var buf [pageHeaderBytes + metaBytes]byte
	read := func(off int64) (meta, error) {
		if off+int64(len(buf)) > size {
			return meta{}, errors.New("past the end of the file")
		}
		if _, err := r.ReadAt(buf[:], off); err != nil {
			return meta{}, err
		}
		return parseMeta(buf[pageHeaderBytes:])
	}
	// The page size is in the first meta page, or, when that one is
	// damaged, in the second, found where bbolt looks for it.
	m0, err0 := read(0)
	pageSize := 0
	if err0 == nil {
		pageSize = int(m0.pageSize)
	} else {
		for off := int64(minPageSize); off <= maxPageSize && off < size; off <<= 1 {
			if m, err := read(off); err == nil && int64(m.pageSize) == off {
				pageSize = int(off)
				break
			}
		}
	}
	if pageSize == 0 {
		return meta{}, 0, damagef("neither meta page is valid (the first: %v)", err0)
	}
	if pageSize < minPageSize || pageSize > maxPageSize || bits.OnesCount(uint(pageSize)) != 1 {
		return meta{}, 0, damagef("page size %d is not a power of two from %d to %d", pageSize, minPageSize, maxPageSize)
	}
	if size < int64(2*pageSize) {
		return meta{}, 0, damagef("the file is %d bytes, shorter than its two meta pages of %d bytes", size, pageSize)
	}
	m0, err0 = read(0)
	m1, err1 := read(int64(pageSize))
	if err0 == nil && int(m0.pageSize) != pageSize {
		err0 = fmt.Errorf("page size %d, not %d", m0.pageSize, pageSize)
	}
	if err1 == nil && int(m1.pageSize) != pageSize {
		err1 = fmt.Errorf("page size %d, not %d", m1.pageSize, pageSize)
	}
	switch {
	case err0 != nil && err1 != nil:
		return meta{}, 0, damagef("neither meta page is valid: %v; %v", err0, err1)
	case err1 != nil, err0 == nil && m0.txid >= m1.txid:
		return m0, pageSize, nil
	}
	return m1, pageSize, nil
}

// checker walks a file's pages, reading each once.
type checker struct {
	r        io.ReaderAt
	pageSize uint64
	hwm      uint64
	seen     []uint64 // a bit per page below hwm
}

func (c *checker) mark(id, overflow uint64) bool {
	fresh := true
	for p := id; p <= id+overflow; p++ {
		w, b := p/64, uint64(1)<<(p%64)
		if c.seen[w]&b != 0 {
			fresh = false
		}
		c.seen[w] |= b
	}
	return fresh
}

// header reads page id's header and checks its id, overflow and type.
func (c *checker) header(id uint64, what string, flags ...uint16) (flag, count uint16, overflow uint64, err error) {
	if id < 2 || id >= c.hwm {
		return 0, 0, 0, damagef("%s: page %d outside pages 2..%d", what, id, c.hwm-1)
	}
	var h [pageHeaderBytes]byte
	if _, err := c.r.ReadAt(h[:], int64(id*c.pageSize)); err != nil {
		return 0, 0, 0, fmt.Errorf("reading page %d: %w", id, err)
	}
	if got := order.Uint64(h[0:]); got != id {
		return 0, 0, 0, damagef("%s: page %d calls itself page %d", what, id, got)
	}
	flag, count, overflow = order.Uint16(h[8:]), order.Uint16(h[10:]), uint64(order.Uint32(h[12:]))
	ok := false
	for _, f := range flags {
		ok = ok || flag == f
	}
	if !ok {
		return 0, 0, 0, damagef("%s: page %d has type %#x", what, id, flag)
	}
	if id+overflow >= c.hwm {
		return 0, 0, 0, damagef("%s: page %d runs %d pages on, past the high-water mark %d", what, id, overflow, c.hwm)
	}
	if !c.mark(id, overflow) {
		return 0, 0, 0, damagef("%s: page %d is used twice", what, id)
	}
	return flag, count, overflow, nil
}

// read reads the whole of page id with its overflow.
func (c *checker) read(id, overflow uint64) ([]byte, error) {
	return c.readAt(id*c.pageSize, (overflow+1)*c.pageSize)
}

func (c *checker) readAt(off, n uint64) ([]byte, error) {
	b := make([]byte, n)
	if _, err := c.r.ReadAt(b, int64(off)); err != nil {
		return nil, fmt.Errorf("reading %d bytes at %d: %w", n, off, err)
	}
	return b, nil
}

// span is a branch or leaf page's bytes, read as needed: a page's
// elements, not its values, are what the walk reads, and values may run
// over many pages.
type span struct {
	size uint64
	read func(off, n uint64) ([]byte, error)
}

func (c *checker) checkFreelist(id uint64) error {
	_, count, overflow, err := c.header(id, "the free list", flagFreelist)
	if err != nil {
		return err
	}
	b, err := c.read(id, overflow)
	if err != nil {
		return err
	}
	slots := (uint64(len(b)) - pageHeaderBytes) / 8
	n, first := uint64(count), uint64(0)
	if count == freelistCountInFirst {
		if slots == 0 {
			return damagef("the free list: page %d has no room for its count", id)
		}
		n, first = order.Uint64(b[pageHeaderBytes:]), 1
	}
	if n > slots-first {
		return damagef("the free list: page %d lists %d pages but has room for %d", id, n, slots-first)
	}
	for i := first; i < first+n; i++ {
		if p := order.Uint64(b[pageHeaderBytes+8*i:]); p < 2 || p >= c.hwm {
			return damagef("the free list: page %d frees page %d, outside pages 2..%d", id, p, c.hwm-1)
		}
	}
	return nil
}

// page checks a branch or leaf page and, through its elements, the pages
// and buckets below it.
func (c *checker) page(id uint64, what string) error {
	flag, count, overflow, err := c.header(id, what, flagBranch, flagLeaf)
	if err != nil {
		return err
	}
	base := id * c.pageSize
	sp := span{size: (overflow + 1) * c.pageSize, read: func(off, n uint64) ([]byte, error) { return c.readAt(base+off, n) }}
	what = fmt.Sprintf("%s: page %d", what, id)
	if flag == flagLeaf {
		return c.leaf(sp, count, what)
	}
	elems, err := elements(sp, count, what)
	if err != nil {
		return err
	}
	for i := range uint64(count) {
		e := elems[i*elementBytes:]
		pos, ksize, child := uint64(order.Uint32(e)), uint64(order.Uint32(e[4:])), order.Uint64(e[8:])
		if pageHeaderBytes+i*elementBytes+pos+ksize > sp.size {
			return damagef("%s: element %d's key lies outside the page", what, i)
		}
		if err := c.page(child, what); err != nil {
			return err
		}
	}
	return nil
}

// elements reads the count elements of a page.
func elements(sp span, count uint16, what string) ([]byte, error) {
	n := uint64(count) * elementBytes
	if pageHeaderBytes+n > sp.size {
		return nil, damagef("%s: %d elements do not fit", what, count)
	}
	return sp.read(pageHeaderBytes, n)
}

// leaf checks a leaf page's elements (sp is the page, or an inline
// bucket's page inside its parent's value) and the buckets they hold.
func (c *checker) leaf(sp span, count uint16, what string) error {
	elems, err := elements(sp, count, what)
	if err != nil {
		return err
	}
	for i := range uint64(count) {
		e := elems[i*elementBytes:]
		flags := order.Uint32(e)
		pos, ksize, vsize := uint64(order.Uint32(e[4:])), uint64(order.Uint32(e[8:])), uint64(order.Uint32(e[12:]))
		at := pageHeaderBytes + i*elementBytes + pos
		if at+ksize+vsize > sp.size {
			return damagef("%s: element %d's key and value lie outside the page", what, i)
		}
		if flags&bucketLeafFlag == 0 {
			continue
		}
		kv, err := sp.read(at, ksize+vsize)
		if err != nil {
			return err
		}
		v := kv[ksize:]
		bucket := fmt.Sprintf("%s: bucket %q", what, kv[:ksize])
		if len(v) < bucketHeaderBytes {
			return damagef("%s: its header is %d bytes", bucket, len(v))
		}
		if root := order.Uint64(v); root != 0 {
			if err := c.page(root, bucket); err != nil {
				return err
			}
			continue
		}
		// An inline bucket: a leaf page inside the value.
		in := v[bucketHeaderBytes:]
		if len(in) < pageHeaderBytes {
			return damagef("%s: its inline page is %d bytes", bucket, len(in))
		}
		if f := order.Uint16(in[8:]); f != flagLeaf {
			return damagef("%s: its inline page has type %#x", bucket, f)
		}
		inline := span{size: uint64(len(in)), read: func(off, n uint64) ([]byte, error) { return in[off : off+n], nil }}
		if err := c.leaf(inline, order.Uint16(in[10:]), bucket); err != nil {
			return err
		}
	}
	return nil
}
