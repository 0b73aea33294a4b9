module github.com/t4e1/clean-go/clean-b/event_handler_server

go 1.24.5
