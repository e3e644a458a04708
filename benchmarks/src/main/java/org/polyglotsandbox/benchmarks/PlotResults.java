package org.polyglotsandbox.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYErrorRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;

/**
 * Draws the {@code SampleTime} results of a JMH JSON file ({@code -rf json}) as a PNG: one group per
 * parameter combination other than {@code design} (for the peers: task and source), one marker per
 * design at the median with a whisker up to p99, on a log scale. Results in other modes are skipped.
 *
 * <p>Run through {@code benchmarks/plot}: {@code benchmarks/plot <results.json> <chart.png> [note]},
 * where the note (for example "loaded machine") is printed under the title. A file whose name ends in
 * {@code .gz} is read through gzip, as the results kept in {@code benchmarks/results/} are.
 */
public final class PlotResults {
  /** Distinct colours that stay readable on white (JFreeChart's defaults include a pale yellow). */
  private static final Color[] PALETTE = {
    new Color(0xD6, 0x27, 0x28), new Color(0x1F, 0x77, 0xB4), new Color(0x2C, 0xA0, 0x2C),
    new Color(0xFF, 0x7F, 0x0E), new Color(0x94, 0x67, 0xBD), new Color(0x17, 0x17, 0x17),
    new Color(0x8C, 0x56, 0x4B), new Color(0x17, 0xBE, 0xCF),
  };

  private PlotResults() {}

  /** One design's median and p99 in one group. */
  private record Point(String design, String group, double median, double p99, String unit) {}

  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      System.err.println("usage: PlotResults <jmh-results.json> <chart.png> [note under the title]");
      System.exit(2);
    }
    File in = new File(args[0]);
    File out = new File(args[1]);
    String note = args.length > 2 ? args[2] : null;
    List<Point> points = read(in);
    if (points.isEmpty()) {
      System.err.println("error: " + in + " has no SampleTime results (run the benchmark with JMH's -rf json)");
      System.exit(1);
    }
    JFreeChart chart = chart(points, in.getName(), note);
    int groups = (int) points.stream().map(Point::group).distinct().count();
    ChartUtils.saveChartAsPNG(out, chart, Math.min(2400, Math.max(1000, 170 * groups + 250)), groups > 8 ? 800 : 650);
    System.out.println("wrote " + out + " (" + points.size() + " results in " + groups + " groups)");
  }

  private static List<Point> read(File in) throws IOException {
    JsonNode root;
    try (InputStream raw = new FileInputStream(in);
        InputStream text = in.getName().endsWith(".gz") ? new GZIPInputStream(raw) : raw) {
      root = new ObjectMapper().readTree(text);
    }
    List<Point> points = new ArrayList<>();
    Set<String> classes = new HashSet<>();
    for (JsonNode r : root) {
      classes.add(className(r.path("benchmark").asText()));
    }
    for (JsonNode r : root) {
      if (!"sample".equals(r.path("mode").asText())) {
        continue;
      }
      JsonNode params = r.path("params");
      String design = params.path("design").asText(shortName(r.path("benchmark").asText()));
      List<String> rest = new ArrayList<>();
      if (classes.size() > 1) {
        rest.add(className(r.path("benchmark").asText()));
      }
      List<String> names = new ArrayList<>();
      params.fieldNames().forEachRemaining(names::add);
      names.remove("design");
      // The task (or kernel) first, so that a task's two source modes stand side by side.
      names.sort(Comparator.comparing((String n) -> !(n.equals("task") || n.equals("kernel")))
          .thenComparing(Comparator.naturalOrder()));
      for (String name : names) {
        rest.add(params.path(name).asText());
      }
      JsonNode metric = r.path("primaryMetric");
      JsonNode pct = metric.path("scorePercentiles");
      points.add(new Point(design, String.join(" ", rest), pct.path("50.0").asDouble(), pct.path("99.0").asDouble(),
          metric.path("scoreUnit").asText()));
    }
    return points;
  }

  private static JFreeChart chart(List<Point> points, String source, String note) {
    List<String> groups = points.stream().map(Point::group).distinct().sorted().toList();
    List<String> designs = points.stream().map(Point::design).distinct().toList();
    YIntervalSeriesCollection data = new YIntervalSeriesCollection();
    double width = 0.7;
    for (int d = 0; d < designs.size(); d++) {
      YIntervalSeries series = new YIntervalSeries(designs.get(d));
      double offset = designs.size() == 1 ? 0 : -width / 2 + width * d / (designs.size() - 1);
      for (Point p : points) {
        if (p.design().equals(designs.get(d))) {
          series.add(groups.indexOf(p.group()) + offset, p.median(), p.median(), Math.max(p.median(), p.p99()));
        }
      }
      data.addSeries(series);
    }
    SymbolAxis x = new SymbolAxis(null, groups.toArray(String[]::new));
    x.setGridBandsVisible(true);
    x.setRange(-0.6, groups.size() - 0.4);
    x.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    x.setVerticalTickLabels(groups.size() > 8);
    String unit = points.get(0).unit();
    LogAxis y = new LogAxis("latency (" + unit + "), log scale");
    y.setBase(10);
    y.setNumberFormatOverride(new DecimalFormat("0.###"));
    y.setSmallestValue(1e-3);
    y.setTickUnit(new NumberTickUnit(1)); // one major tick per power of ten
    y.setMinorTickCount(9);
    y.setMinorTickMarksVisible(true);
    double min = points.stream().mapToDouble(Point::median).min().orElse(0.01);
    double max = points.stream().mapToDouble(p -> Math.max(p.median(), p.p99())).max().orElse(1000);
    y.setRange(min / 2, max * 2);
    XYErrorRenderer renderer = new XYErrorRenderer();
    renderer.setDrawXError(false);
    renderer.setDrawYError(true);
    renderer.setCapLength(6);
    renderer.setErrorStroke(new BasicStroke(1.5f));
    renderer.setDefaultLinesVisible(false);
    renderer.setDefaultShapesVisible(true);
    for (int d = 0; d < designs.size(); d++) {
      renderer.setSeriesPaint(d, PALETTE[d % PALETTE.length]);
    }
    XYPlot plot = new XYPlot(data, x, y, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setDomainGridlinesVisible(false);
    JFreeChart chart = new JFreeChart("Latency per task and design: marker at the median, whisker to p99 ("
        + source + ")", new Font(Font.SANS_SERIF, Font.BOLD, 15), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    if (note != null && !note.isBlank()) {
      chart.addSubtitle(new TextTitle(note, new Font(Font.SANS_SERIF, Font.ITALIC, 13)));
    }
    return chart;
  }

  private static String className(String benchmark) {
    String[] parts = benchmark.split("\\.");
    return parts.length >= 2 ? parts[parts.length - 2] : benchmark;
  }

  private static String shortName(String benchmark) {
    String[] parts = benchmark.split("\\.");
    return parts.length >= 2 ? parts[parts.length - 2] + "." + parts[parts.length - 1] : benchmark;
  }
}
