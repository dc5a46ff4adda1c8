use std::path::Path;
use revoice_audio::tone::{long_term_spectrum, ToneCurve};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let enc = revoice_model::speaker::SpeakerEncoder::load(Path::new("/work/main/target/test-data")).unwrap();
    let load = |p: &str| revoice_audio::decode::decode_file(Path::new(p)).unwrap();
    let cos = |r: &[f32], e: &[f32]| r.iter().zip(e).map(|(x,y)| x*y).sum::<f32>() / (r.iter().map(|x| x*x).sum::<f32>().sqrt() * e.iter().map(|x| x*x).sum::<f32>().sqrt());
    let rd = load(&args[0]);
    let r = enc.embed(&rd.samples, rd.sample_rate).unwrap().embedding;
    let rl = long_term_spectrum(&rd.samples, rd.sample_rate).unwrap();
    for a in &args[1..] {
        let d = load(a);
        let e = enc.embed(&d.samples, d.sample_rate).unwrap().embedding;
        let mut line = format!("{:.3}", cos(&r, &e));
        for max in [6.0, 10.0, 15.0] {
            let c = ToneCurve::matching(&rl, &long_term_spectrum(&d.samples, d.sample_rate).unwrap(), max);
            let y = c.apply(&d.samples, d.sample_rate);
            let e2 = enc.embed(&y, d.sample_rate).unwrap().embedding;
            line += &format!("  ±{max}: {:.3}", cos(&r, &e2));
        }
        println!("{line} {a}");
    }
}
