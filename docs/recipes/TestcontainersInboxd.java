// Testcontainers for Java (docs/recipes/testcontainers.md): inboxd in a throwaway container, ready
// when GET /readyz answers 200. Needs org.testcontainers:testcontainers (JUnit 5: org.testcontainers:junit-jupiter).
import java.time.Duration;
import java.util.UUID;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

public final class TestcontainersInboxd {
  public static final String API_KEY = "isk_live_" + UUID.randomUUID().toString().replace("-", "");

  @SuppressWarnings("resource")
  public static GenericContainer<?> inboxd(String image) {
    return new GenericContainer<>(DockerImageName.parse(image))
        .withEnv("INBOXD_BOOTSTRAP_KEY", API_KEY)
        .withExposedPorts(8025, 1025)
        .waitingFor(Wait.forHttp("/readyz").forPort(8025).forStatusCode(200))
        .withStartupTimeout(Duration.ofSeconds(60));
  }

  public static void main(String[] args) {
    try (GenericContainer<?> c = inboxd("inboxd:latest")) {
      c.start();
      String url = "http://" + c.getHost() + ":" + c.getMappedPort(8025);
      String smtp = c.getHost() + ":" + c.getMappedPort(1025);
      System.out.println("inboxd at " + url + ", SMTP at " + smtp);
    }
  }
}
