#!/bin/sh
# Makes the test-only CA and the loopback server certificate it signs (valid 100 years).
set -eu
cd "$(dirname "$0")"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca-key.pem -out ca.pem -days 36500 -subj "/CN=spinup test CA (never trust outside tests)" -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout server-key.pem -out server.csr -subj "/CN=127.0.0.1" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out server-cert.pem -days 36500 -extfile server.ext 2>/dev/null
rm -f server.csr server.ext ca.srl ca-key.pem
