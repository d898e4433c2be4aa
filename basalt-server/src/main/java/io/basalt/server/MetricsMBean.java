package io.basalt.server;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's metrics over JMX: one read-only attribute per sample of the Prometheus registry,
 * named as {@code /metrics} prints it ({@code basalt_requests_total{op="GET"}}; a histogram gives
 * its {@code _count} and {@code _sum}), under {@code io.basalt:type=Server,port=PORT}. Each read
 * scrapes the registry, so JMX and {@code /metrics} never disagree.
 */
final class MetricsMBean implements DynamicMBean {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsMBean.class);

    private final ServerMetrics metrics;

    private MetricsMBean(ServerMetrics metrics) {
        this.metrics = metrics;
    }

    /** Registers the server's bean; returns its name, or {@code null} when JMX refused it (logged). */
    static ObjectName register(ServerMetrics metrics, int port) {
        try {
            ObjectName name = new ObjectName("io.basalt:type=Server,port=" + port);
            ManagementFactory.getPlatformMBeanServer().registerMBean(new MetricsMBean(metrics), name);
            return name;
        } catch (JMException | RuntimeException e) {
            LOG.warn("Metrics are not available over JMX: {}", e.toString());
            return null;
        }
    }

    static void unregister(ObjectName name) {
        if (name == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException e) {
            LOG.debug("unregistering {}: {}", name, e.toString());
        }
    }

    /** Every sample of {@code snapshots}, by its name with labels as the text format writes it. */
    static SortedMap<String, Double> flatten(MetricSnapshots snapshots) {
        SortedMap<String, Double> out = new TreeMap<>();
        for (MetricSnapshot m : snapshots) {
            String name = m.getMetadata().getPrometheusName();
            for (DataPointSnapshot p : m.getDataPoints()) {
                String labels = labels(p.getLabels());
                switch (p) {
                    case CounterSnapshot.CounterDataPointSnapshot c -> out.put(name + "_total" + labels, c.getValue());
                    case GaugeSnapshot.GaugeDataPointSnapshot g -> out.put(name + labels, g.getValue());
                    case HistogramSnapshot.HistogramDataPointSnapshot h -> {
                        out.put(name + "_count" + labels, (double) h.getCount());
                        out.put(name + "_sum" + labels, h.getSum());
                    }
                    default -> { } // no other kinds are registered
                }
            }
        }
        return out;
    }

    private static String labels(Labels labels) {
        if (labels.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < labels.size(); i++) {
            b.append(i == 0 ? "" : ",").append(labels.getPrometheusName(i)).append("=\"")
                    .append(labels.getValue(i).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return b.append('}').toString();
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        Double v = flatten(metrics.scrape()).get(attribute);
        if (v == null) {
            throw new AttributeNotFoundException("no metric " + attribute);
        }
        return v;
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        SortedMap<String, Double> all = flatten(metrics.scrape());
        AttributeList out = new AttributeList();
        for (String a : attributes) {
            Double v = all.get(a);
            if (v != null) {
                out.add(new Attribute(a, v));
            }
        }
        return out;
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) throws javax.management.MBeanException {
        throw new javax.management.MBeanException(new UnsupportedOperationException("no operations"));
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        List<MBeanAttributeInfo> attributes = new ArrayList<>();
        for (String name : flatten(metrics.scrape()).keySet()) {
            attributes.add(new MBeanAttributeInfo(name, "java.lang.Double", name, true, false, false));
        }
        return new MBeanInfo(MetricsMBean.class.getName(), "Basalt server metrics (as /metrics prints them)",
                attributes.toArray(MBeanAttributeInfo[]::new), null, new MBeanOperationInfo[0], null);
    }
}
