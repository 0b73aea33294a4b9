module github.com/t4e1/clean-go/clean-b/event_handler_client

go 1.24.5

require gopkg.in/yaml.v3 v3.0.1 // indirect
