# Hostile: phone home to a cloud metadata endpoint.
# expect: GUEST_ERROR
# denied: network.socket
import socket
socket.create_connection(('169.254.169.254', 80), timeout=2).sendall(b'GET / HTTP/1.0\r\n\r\n')
