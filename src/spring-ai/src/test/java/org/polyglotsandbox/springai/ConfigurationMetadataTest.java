package org.polyglotsandbox.springai;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The module's {@code META-INF/spring-configuration-metadata.json}, read from where this module's classes
 * were loaded (its jar, or its build's classes): what an IDE offers as completion for
 * {@code polyglot-sandbox.*}. Every property the application can bind is there, with a description an
 * IDE shows as it is and the value it has when unset.
 */
class ConfigurationMetadataTest {
  private static final String PREFIX = "polyglot-sandbox";
  /** Properties with no fixed value when unset; their descriptions say what happens instead. */
  private static final Map<String, String> NO_DEFAULT = Map.of(
      PREFIX + ".policy-file", "None unless set",
      PREFIX + ".max-concurrent-runs", "4 per processor");

  private static Map<String, JsonNode> metadata;

  @BeforeAll
  static void read() throws Exception {
    URL here = PolyglotSandboxProperties.class.getProtectionDomain().getCodeSource().getLocation();
    // Only this module's location: Spring Boot's own jars carry metadata files of the same name.
    try (URLClassLoader module = new URLClassLoader(new URL[] {here}, null);
        InputStream in = module.getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("metadata in " + here).isNotNull();
      JsonNode root = JsonMapper.builder().build().readTree(in);
      metadata = new LinkedHashMap<>();
      for (JsonNode property : root.get("properties")) {
        metadata.put(property.get("name").stringValue(), property);
      }
    }
  }

  /** The names Spring binds on {@link PolyglotSandboxProperties}, found from the class, not the metadata. */
  private static TreeSet<String> boundNames(Class<?> type, String prefix) {
    TreeSet<String> names = new TreeSet<>();
    for (PropertyDescriptor d : BeanUtils.getPropertyDescriptors(type)) {
      if (d.getReadMethod() == null || d.getName().equals("class")) {
        continue;
      }
      String name = prefix + "." + d.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
      if (d.getWriteMethod() != null) {
        names.add(name);
      } else if (d.getPropertyType().getEnclosingClass() == PolyglotSandboxProperties.class) {
        names.addAll(boundNames(d.getPropertyType(), name)); // a nested group, such as limits
      }
    }
    return names;
  }

  @Test
  void everyBoundProperty_isInTheMetadata_withADescriptionAnIdeShowsAsItIs() {
    TreeSet<String> bound = boundNames(PolyglotSandboxProperties.class, PREFIX);

    assertThat(bound).contains(PREFIX + ".start-in-background", PREFIX + ".limits.wall-time");
    assertThat(metadata.keySet()).containsExactlyInAnyOrderElementsOf(bound);
    assertThat(metadata.values()).allSatisfy(p -> assertThat(p.path("description").asString(""))
        .as(p.get("name").stringValue())
        .endsWith(".")
        .hasSizeGreaterThan(30)
        .doesNotContain("{@", "<p>", "@see"));
  }

  @Test
  void everyProperty_hasItsValueWhenUnset_orSaysWhyItHasNone() {
    assertThat(metadata.values()).allSatisfy(p -> {
      String name = p.get("name").stringValue();
      if (NO_DEFAULT.containsKey(name)) {
        assertThat(p.has("defaultValue")).as(name).isFalse();
        assertThat(p.get("description").stringValue()).as(name).contains(NO_DEFAULT.get(name));
      } else {
        assertThat(p.has("defaultValue")).as(name + " has a default").isTrue();
      }
    });
    assertThat(metadata.get(PREFIX + ".start-in-background").get("defaultValue").booleanValue()).isTrue();
  }

  @Test
  void theDefaults_bindToWhatUnsetPropertiesGive() {
    Map<String, Object> defaults = new LinkedHashMap<>();
    metadata.forEach((name, p) -> {
      JsonNode value = p.get("defaultValue");
      if (value != null && !(value.isArray() && value.isEmpty())) {
        defaults.put(name, value.isString() ? value.stringValue() : value.toString());
      }
    });
    PolyglotSandboxProperties bound = new Binder(new MapConfigurationPropertySource(defaults))
        .bind(PREFIX, PolyglotSandboxProperties.class).get();
    PolyglotSandboxProperties unset = new PolyglotSandboxProperties();

    // Each limit's stated default is the library's: setting every one changes nothing.
    assertThat(PolyglotSandboxAutoConfiguration.policy(bound)).isEqualTo(Policy.computeOnly(Language.JAVASCRIPT));
    assertThat(PolyglotSandboxAutoConfiguration.policy(unset)).isEqualTo(Policy.computeOnly(Language.JAVASCRIPT));
    assertThat(bound.isEnabled()).isEqualTo(unset.isEnabled());
    assertThat(bound.isStartInBackground()).isEqualTo(unset.isStartInBackground());
    assertThat(bound.getWarmContexts()).isEqualTo(unset.getWarmContexts());
  }
}
