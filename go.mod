module github.com/openjibo/jibod

go 1.25

require (
	github.com/fxamacker/cbor/v2 v2.9.6
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/x448/float16 v0.8.4 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
