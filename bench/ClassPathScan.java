// How long a cold JVM's first class-path resource lookup takes (what a ServiceLoader does first: JBoss LogManager's
// at the relay's start), and the next ones: the JDK's class loader opens every jar of the class path on the first one.
// Compiled first: the source launcher would compile it against the class path, opening every jar before main.
// usage (docs/BENCHMARKS.md "What else a start could give up"), from the build's directory:
//   javac -d /tmp/cps bench/ClassPathScan.java
//   cd meshnode-app/target/quarkus-app && java -cp "/tmp/cps:$(../../../bench/ClassPathScan.sh)" ClassPathScan
public class ClassPathScan {
    public static void main(String[] a) throws Exception {
        String cp = System.getProperty("java.class.path");
        System.out.println(cp.split(java.io.File.pathSeparator).length + " class path entries");
        for (int i = 0; i < 3; i++) {
            String name = "META-INF/services/org.jboss.logmanager.ConfiguratorFactory" + (i == 2 ? "" : ".absent" + i);
            long t = System.nanoTime();
            var e = ClassLoader.getSystemClassLoader().getResources(name);
            int n = 0;
            while (e.hasMoreElements()) {
                e.nextElement();
                n++;
            }
            System.out.printf("lookup %d: %.1f ms, %d found%n", i + 1, (System.nanoTime() - t) / 1e6, n);
        }
    }
}
