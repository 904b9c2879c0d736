package sphinx

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Limits on a sendump file (pocketsphinx's quantised mixture weights).
const (
	maxSendumpHeader  = 64 << 10
	maxSendumpMixture = 1 << 20 // senones
	maxSendumpModels  = 4096    // densities per codebook
	maxSendumpFeats   = 8
)

// MixtureWeights are a model's mixture weights: W[senone][feature][density],
// each distribution summing to one.
type MixtureWeights struct {
	Senones, Features, Densities int
	W                            []float32 // senone-major
}

// ReadSendump reads pocketsphinx's quantised mixture weights ("sendump",
// as Debian's en-us model ships them): a header of length-prefixed
// strings, the density and senone counts, then for each feature and
// density one byte per senone holding -log1.0001(weight) >> mixw_shift.
// sphinxtrain's adaptation tools need the weights as a plain Sphinx-III
// mixture_weights file (WriteMixtureWeights).
func ReadSendump(r io.Reader) (*MixtureWeights, error) {
	br := bufio.NewReader(r)
	var order binary.ByteOrder = binary.LittleEndian
	first := true
	readInt := func(what string) (int, error) {
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return 0, fmt.Errorf("sendump: reading %s: %w", what, err)
		}
		v := order.Uint32(b[:])
		if first {
			// The first length tells the byte order: a title is short.
			first = false
			if v > maxSendumpHeader {
				order = binary.BigEndian
				v = order.Uint32(b[:])
			}
		}
		return int(v), nil
	}
	headerBytes := 0
	fields := map[string]string{}
	for i := 0; ; i++ {
		n, err := readInt("the header")
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		headerBytes += n
		if n > maxSendumpHeader || headerBytes > maxSendumpHeader {
			return nil, fmt.Errorf("sendump: header longer than %d bytes", maxSendumpHeader)
		}
		s := make([]byte, n)
		if _, err := io.ReadFull(br, s); err != nil {
			return nil, fmt.Errorf("sendump: reading the header: %w", err)
		}
		if i > 0 { // the first string is the format's description
			f := strings.Fields(strings.TrimRight(string(s), "\x00"))
			if len(f) >= 2 {
				fields[f[0]] = f[1]
			}
		}
	}
	num := func(key string, def int) (int, error) {
		v, ok := fields[key]
		if !ok {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("sendump: header %s %q is not a count", key, v)
		}
		return n, nil
	}
	shift, err := num("mixw_shift", 10)
	if err != nil {
		return nil, err
	}
	feats, err := num("feature_count", 0)
	if err != nil {
		return nil, err
	}
	clusters, err := num("cluster_count", 0)
	if err != nil {
		return nil, err
	}
	if clusters != 0 {
		return nil, fmt.Errorf("sendump: clustered weights (cluster_count %d) are not supported", clusters)
	}
	if feats < 1 || feats > maxSendumpFeats || shift > 20 {
		return nil, fmt.Errorf("sendump: feature_count %d or mixw_shift %d out of range", feats, shift)
	}
	densities, err := readInt("the density count")
	if err != nil {
		return nil, err
	}
	senones, err := readInt("the senone count")
	if err != nil {
		return nil, err
	}
	if densities < 1 || densities > maxSendumpModels || senones < 1 || senones > maxSendumpMixture {
		return nil, fmt.Errorf("sendump: %d densities × %d senones out of range", densities, senones)
	}
	mw := &MixtureWeights{Senones: senones, Features: feats, Densities: densities,
		W: make([]float32, senones*feats*densities)}
	row := make([]byte, senones)
	logBase := math.Log(1.0001)
	for f := range feats {
		for d := range densities {
			if _, err := io.ReadFull(br, row); err != nil {
				return nil, fmt.Errorf("sendump: reading feature %d density %d: %w", f, d, err)
			}
			for s, q := range row {
				mw.W[(s*feats+f)*densities+d] = float32(math.Exp(-float64(int(q)<<shift) * logBase))
			}
		}
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		return nil, errors.New("sendump: data after the weights")
	}
	// Quantisation leaves each distribution a little off one.
	for i := 0; i < len(mw.W); i += densities {
		var sum float64
		for _, w := range mw.W[i : i+densities] {
			sum += float64(w)
		}
		if sum <= 0 {
			continue
		}
		for j := i; j < i+densities; j++ {
			mw.W[j] = float32(float64(mw.W[j]) / sum)
		}
	}
	return mw, nil
}

// WriteMixtureWeights writes mw as a Sphinx-III binary parameter file
// ("s3" header, byte-order word, three dimensions, the count, then
// float32s), the form sphinxtrain's bw and map_adapt read.
func WriteMixtureWeights(w io.Writer, mw *MixtureWeights) error {
	if len(mw.W) != mw.Senones*mw.Features*mw.Densities {
		return fmt.Errorf("mixture weights: %d values for %d×%d×%d", len(mw.W), mw.Senones, mw.Features, mw.Densities)
	}
	hdr := "s3\nversion 1.0\n"
	// The data must start on a 4-byte boundary: pad before "endhdr".
	pad := (4 - (len(hdr)+len("endhdr\n"))%4) % 4
	bw := bufio.NewWriter(w)
	bw.WriteString(hdr + strings.Repeat(" ", pad) + "endhdr\n")
	le := binary.LittleEndian
	var b [4]byte
	put := func(v uint32) {
		le.PutUint32(b[:], v)
		bw.Write(b[:])
	}
	put(0x11223344)
	put(uint32(mw.Senones))
	put(uint32(mw.Features))
	put(uint32(mw.Densities))
	put(uint32(len(mw.W)))
	for _, v := range mw.W {
		put(math.Float32bits(v))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing mixture weights: %w", err)
	}
	return nil
}
