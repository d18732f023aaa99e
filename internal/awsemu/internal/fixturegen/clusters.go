package main

import (
	"encoding/base64"
	"time"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// Throwaway self-signed CAs (CN=kubernetes, ECDSA P-256) made once with
// openssl; EKS returns the cluster CA as base64 of its PEM.
const (
	demoCA = `-----BEGIN CERTIFICATE-----
MIIBjzCCATWgAwIBAgIUWx5svUicX5q1eYJ40F+5QHbaihkwCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKa3ViZXJuZXRlczAeFw0yNjExMjExMjMzNTBaFw0zNjExMTgx
MjMzNTBaMBUxEzARBgNVBAMMCmt1YmVybmV0ZXMwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARqByE4RDdf8TmDRwBOmiCJ6I72CEx7spY8G0o8dW089i6ekG1/6hYa
fO1tiJ8mgiRk/knleSzlZZI7QreH09sCo2MwYTAdBgNVHQ4EFgQUB81U5gbf8PGk
P5Ezsf/a+FSWEEgwHwYDVR0jBBgwFoAUB81U5gbf8PGkP5Ezsf/a+FSWEEgwDwYD
VR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAqQwCgYIKoZIzj0EAwIDSAAwRQIh
AOQ44O0GfPi9iuvSfCJPbAQH50rfPNakNv35IJy20BVzAiA4J1QphaZkl0Qrmjqs
z1ZmkckKKwIzP+Ifang85731gA==
-----END CERTIFICATE-----
`
	modernCA = `-----BEGIN CERTIFICATE-----
MIIBjjCCATWgAwIBAgIUOICG6Bv24AbHaOB7agPkPYBOJ7EwCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKa3ViZXJuZXRlczAeFw0yNjExMjExMjMzNTBaFw0zNjExMTgx
MjMzNTBaMBUxEzARBgNVBAMMCmt1YmVybmV0ZXMwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARzulQI4KL+CRztkl+mQxGv9VLNpexagHx+Z57ZPdFPYb32oCmSt5J+
6l+EJQ/81NwEVZYgqxq4psngFbWX8k3ko2MwYTAdBgNVHQ4EFgQUSpyddJY6SBJ2
KBsQCNAtMnu9S10wHwYDVR0jBBgwFoAUSpyddJY6SBJ2KBsQCNAtMnu9S10wDwYD
VR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAqQwCgYIKoZIzj0EAwIDRwAwRAIg
Ns4xVnjd6vxGI+cV8LB6ZILAQWJY8HTMPoUkikie2YsCIEqu4JlyLNxJsQxr6w+v
jN77PAMIX5p1RoFEDviR/iqh
-----END CERTIFICATE-----
`
	v6CA = `-----BEGIN CERTIFICATE-----
MIIBkDCCATWgAwIBAgIUDOR46yVosC5elGAVE9F3m03kzqQwCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKa3ViZXJuZXRlczAeFw0yNjExMjExMjMzNTBaFw0zNjExMTgx
MjMzNTBaMBUxEzARBgNVBAMMCmt1YmVybmV0ZXMwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQzN/JZrC7OhzgcjCGG1/GwFzrEHvRoIpG8CisE7VYjfCUiO++l/zcY
alVSsZ+kLIwM9eQcV+RuzQSUVpBLd3QLo2MwYTAdBgNVHQ4EFgQUxg2EKbb8qHjn
2TaUaSvoLPJBHVwwHwYDVR0jBBgwFoAUxg2EKbb8qHjn2TaUaSvoLPJBHVwwDwYD
VR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAqQwCgYIKoZIzj0EAwIDSQAwRgIh
ALO6FFTalB7tazKCZ2NEXFgmZ/twqKD8PBHNW3hDNzlOAiEAzXDY3LhG1nGTYAQG
Az9LCmWMNu7gx3O64YCEiKpxpAQ=
-----END CERTIFICATE-----
`
)

type clusterSpec struct {
	name, version, platform, ca string
	endpointID                  string // the 32-hex-digit host label EKS assigns
	net                         ekstypes.KubernetesNetworkConfigResponse
	created                     time.Time
}

var clusterSpecs = []clusterSpec{
	{
		name: "demo", version: "1.32", platform: "eks.23", ca: demoCA,
		endpointID: "5E4A1C7B0D9F2E3A6B8C4D1E7F0A2B3C",
		net: ekstypes.KubernetesNetworkConfigResponse{
			IpFamily:        ekstypes.IpFamilyIpv4,
			ServiceIpv4Cidr: ptr("172.20.0.0/16"),
		},
		created: time.Date(2025, 3, 14, 9, 12, 0, 0, time.UTC),
	},
	{
		name: "modern", version: "1.35", platform: "eks.4", ca: modernCA,
		endpointID: "9C0F3B5D7E1A2C4B6D8E0F1A3B5C7D9E",
		net: ekstypes.KubernetesNetworkConfigResponse{
			IpFamily:        ekstypes.IpFamilyIpv4,
			ServiceIpv4Cidr: ptr("10.100.0.0/16"),
		},
		created: time.Date(2026, 2, 2, 15, 40, 0, 0, time.UTC),
	},
	{
		// IPv6 cluster: no IPv4 service range, the service CIDR is IPv6.
		name: "v6", version: "1.32", platform: "eks.23", ca: v6CA,
		endpointID: "2B4D6F8A0C1E3A5B7C9D0E2F4A6B8C0D",
		net: ekstypes.KubernetesNetworkConfigResponse{
			IpFamily:        ekstypes.IpFamilyIpv6,
			ServiceIpv6Cidr: ptr("fd00:10:96::/112"),
		},
		created: time.Date(2025, 6, 30, 7, 5, 0, 0, time.UTC),
	},
}

func clusters() []ekstypes.Cluster {
	var out []ekstypes.Cluster
	for _, c := range clusterSpecs {
		arn := "arn:aws:eks:" + region + ":" + accountID + ":cluster/" + c.name
		net := c.net
		net.ElasticLoadBalancing = &ekstypes.ElasticLoadBalancing{Enabled: ptr(false)}
		out = append(out, ekstypes.Cluster{
			AccessConfig: &ekstypes.AccessConfigResponse{AuthenticationMode: ekstypes.AuthenticationModeApiAndConfigMap},
			Arn:          ptr(arn),
			CertificateAuthority: &ekstypes.Certificate{
				Data: ptr(base64.StdEncoding.EncodeToString([]byte(c.ca))),
			},
			CreatedAt: ptr(c.created),
			Endpoint:  ptr("https://" + c.endpointID + ".gr7." + region + ".eks.amazonaws.com"),
			Identity: &ekstypes.Identity{Oidc: &ekstypes.OIDC{
				Issuer: ptr("https://oidc.eks." + region + ".amazonaws.com/id/" + c.endpointID),
			}},
			KubernetesNetworkConfig: &net,
			Name:                    ptr(c.name),
			PlatformVersion:         ptr(c.platform),
			ResourcesVpcConfig: &ekstypes.VpcConfigResponse{
				ClusterSecurityGroupId: ptr("sg-0" + hexOf("sg", c.name, 16)),
				EndpointPrivateAccess:  true,
				EndpointPublicAccess:   true,
				PublicAccessCidrs:      []string{"0.0.0.0/0"},
				SecurityGroupIds:       []string{},
				SubnetIds:              []string{"subnet-0" + hexOf("subnet-a", c.name, 16), "subnet-0" + hexOf("subnet-b", c.name, 16)},
				VpcId:                  ptr("vpc-0" + hexOf("vpc", c.name, 16)),
			},
			RoleArn:       ptr("arn:aws:iam::" + accountID + ":role/" + c.name + "-cluster"),
			Status:        ekstypes.ClusterStatusActive,
			Tags:          map[string]string{"karpenter.sh/discovery": c.name},
			UpgradePolicy: &ekstypes.UpgradePolicyResponse{SupportType: ekstypes.SupportTypeStandard},
			Version:       ptr(c.version),
		})
	}
	return out
}
