package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Startup is measured the way Terraform starts a provider: go-plugin's
// client with Terraform's handshake (magic cookie, protocol 6, gRPC,
// AutoMTLS: a fresh client certificate in PLUGIN_CLIENT_CERT, the server's
// in the handshake line), then one GetProviderSchema call, the first RPC
// Terraform sends. Ready is exec to a connected gRPC client (handshake read,
// mTLS set up); Schema is exec to the schema response received.
var terraformHandshake = plugin.HandshakeConfig{
	MagicCookieKey:   "TF_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
}

// connPlugin hands out the raw gRPC connection; the probe calls the
// tfplugin6 method by name, so it needs no generated client.
type connPlugin struct{ plugin.NetRPCUnsupportedPlugin }

func (connPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return fmt.Errorf("client only")
}

func (connPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return c, nil
}

// StartupSample is one start of a plugin.
type StartupSample struct {
	Ready, Schema time.Duration
	SchemaBytes   int
}

// probeStartup starts cmd as Terraform would, asks for the schema with the
// first RPC of the plugin protocol (5: the AWS provider, 6: this one) and
// stops the plugin.
func probeStartup(ctx context.Context, cmd *exec.Cmd, protocol int) (StartupSample, error) {
	method := "/tfplugin6.Provider/GetProviderSchema"
	if protocol == 5 {
		method = "/tfplugin5.Provider/GetSchema"
	}
	var s StartupSample
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  terraformHandshake,
		VersionedPlugins: map[int]plugin.PluginSet{protocol: {"provider": connPlugin{}}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		Logger:           hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off}),
		Stderr:           io.Discard,
		StartTimeout:     30 * time.Second,
	})
	defer client.Kill()
	start := time.Now()
	rpc, err := client.Client()
	if err != nil {
		return s, err
	}
	raw, err := rpc.Dispense("provider")
	if err != nil {
		return s, err
	}
	s.Ready = time.Since(start)
	conn, ok := raw.(*grpc.ClientConn)
	if !ok {
		return s, fmt.Errorf("go-plugin dispensed %T, not a gRPC connection", raw)
	}
	// GetProviderSchema.Request has no fields: an empty message is its
	// encoding. The response is kept as unknown fields, fully parsed.
	var resp emptypb.Empty
	if err := conn.Invoke(ctx, method, &emptypb.Empty{}, &resp); err != nil {
		return s, fmt.Errorf("%s: %w", method, err)
	}
	s.Schema = time.Since(start)
	s.SchemaBytes = len(resp.ProtoReflect().GetUnknown())
	return s, nil
}
