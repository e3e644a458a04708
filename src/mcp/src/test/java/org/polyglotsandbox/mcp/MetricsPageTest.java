package org.polyglotsandbox.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * {@code GET /metrics} over HTTP answers the embedder's text, fresh on each request, as Prometheus text; a
 * server built without a metrics page has none.
 */
class MetricsPageTest {
  private static HttpResponse<String> get(URI uri) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void metricsPage_isServedOnTheMcpPort_freshOnEachRequest_andAbsentUnlessGiven() throws Exception {
    AtomicInteger scrapes = new AtomicInteger();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT)).build()) {
      try (HttpEndpoint http = SandboxMcpServer.builder(sandbox)
          .metricsPage(() -> "sandbox_scrapes_total " + scrapes.incrementAndGet() + "\n").build()
          .serveHttp("127.0.0.1", 0)) {
        HttpResponse<String> first = get(http.uri().resolve("/metrics"));
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(first.body()).isEqualTo("sandbox_scrapes_total 1\n");
        assertThat(get(http.uri().resolve("/metrics")).body()).isEqualTo("sandbox_scrapes_total 2\n");
      }
      try (HttpEndpoint http = SandboxMcpServer.builder(sandbox).build().serveHttp("127.0.0.1", 0)) {
        assertThat(get(http.uri().resolve("/metrics")).statusCode()).isEqualTo(404);
      }
    }
  }
}
