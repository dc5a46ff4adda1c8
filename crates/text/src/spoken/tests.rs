//! Written and heard pairs, per language, that must read alike, and real
//! errors that must still leave words apart.

use super::*;

/// Both texts in words, each figure read as the other text says it (as
/// `word_errors` compares them).
fn compared(language: &str, written: &str, heard: &str) -> (Vec<String>, Vec<String>) {
    let (written, heard) = (spoken(written, language), spoken(heard, language));
    let written = choose(&written, &first_words(&heard));
    let heard = choose(&heard, &written);
    (written, heard)
}

/// Each (written, heard) pair reads word for word alike, either way round.
fn agree(language: &str, pairs: &[(&str, &str)]) {
    for (written, heard) in pairs {
        for (a, b) in [(written, heard), (heard, written)] {
            let (a_words, b_words) = compared(language, a, b);
            assert_eq!(a_words, b_words, "{language}: {a:?} heard as {b:?}");
        }
    }
}

/// Each (written, heard, wrong words) triple is that many word edits apart.
fn differ(language: &str, cases: &[(&str, &str, usize)]) {
    for (written, heard, wrong) in cases {
        let (a, b) = compared(language, written, heard);
        assert_eq!(edits(&a, &b), *wrong, "{language}: {written:?} heard as {heard:?}: {a:?} / {b:?}");
    }
}

#[test]
fn english_figures_agree_with_their_words() {
    let pairs = [
        // numbers and thousands
        ("Forty pounds, framed.", "40 pounds framed."),
        ("one hundred and five", "105"),
        ("A hundred men.", "100 men."),
        ("Twelve thousand five hundred people.", "12,500 people."),
        ("two million", "2,000,000"),
        // years
        ("the winter of 1951", "the winter of nineteen fifty-one"),
        ("In 1905", "In nineteen oh five"),
        ("In 2005", "In two thousand and five"),
        ("In 2019", "In twenty nineteen"),
        ("In 1900", "In nineteen hundred"),
        ("The 1950s", "The nineteen fifties"),
        // decimals
        ("3.5 metres", "three point five metres"),
        ("0.5", "point five"),
        // money
        ("£40", "forty pounds"),
        ("£1", "one pound"),
        ("$3.50", "three dollars and fifty cents"),
        ("$3.50", "three fifty"),
        ("£2.99", "two pounds ninety-nine"),
        ("€40", "40 euros"),
        ("40 €", "forty euros"),
        ("$1.5 million", "one point five million dollars"),
        // percentages
        ("50% off", "fifty percent off"),
        ("50 per cent", "50%"),
        // ordinals
        ("1st", "first"),
        ("2nd", "second"),
        ("3rd", "third"),
        ("21st", "twenty-first"),
        ("the 100th day", "the hundredth day"),
        // times
        ("At 10:30.", "At ten thirty."),
        ("At 10:30.", "At half past ten."),
        ("At 10:30.", "At 10.30."),
        ("3.14", "three point one four"),
        ("7 pm", "seven p.m."),
        ("7pm", "7 PM"),
        ("at 9:05 a.m.", "at nine oh five am"),
        ("10:00", "ten o'clock"),
        ("10:45", "a quarter to eleven"),
        // dates
        ("May 5", "May fifth"),
        ("5 May", "the fifth of May"),
        // abbreviations and contractions
        ("Mr. Smith and Dr. Jones", "Mister Smith and Doctor Jones"),
        ("St. Paul's", "Saint Paul's"),
        ("Baker St.", "Baker Street"),
        ("Ali vs. Frazier", "Ali versus Frazier"),
        ("apples, pears, etc.", "apples, pears, et cetera"),
        ("We're done, OK?", "We are done, okay?"),
        ("5 km", "five kilometres"),
        ("10km", "ten kilometers"),
        ("a 3D film", "a three D film"),
    ];
    agree("en-GB", &pairs);
    agree("en-US", &[("on 12/25/2024", "on December twenty-fifth twenty twenty-four"), ("$3.50", "3 dollars 50 cents")]);
    agree("en-GB", &[("on 25/12/2024", "on the twenty-fifth of December twenty twenty-four")]);
}

#[test]
fn english_errors_are_still_counted() {
    differ(
        "en-US",
        &[
            ("Forty pounds, framed.", "Fourteen pounds, framed.", 1),
            ("the winter of 1951", "the winter of 1952", 1),
            ("£40", "forty dollars", 1),
            ("It costs 40 dollars", "It costs dollars", 1),
            ("at 10:30", "at 11:30", 1),
            ("the 21st", "the 22nd", 1),
            ("Fine. I'll check.", "Fine. I'll chat.", 1),
            ("50% off", "15% off", 1),
        ],
    );
}

#[test]
fn spanish_figures_agree_with_their_words() {
    agree(
        "es",
        &[
            ("Cuesta 40 €.", "Cuesta cuarenta euros."),
            ("3,50 €", "tres euros con cincuenta"),
            ("$3.50", "tres dólares con cincuenta centavos"),
            ("En 1951", "En mil novecientos cincuenta y uno"),
            ("1.500 personas", "mil quinientas personas"),
            ("2 000 000", "dos millones"),
            ("21 años", "veintiún años"),
            ("101", "ciento uno"),
            ("100", "cien"),
            ("3,5", "tres coma cinco"),
            ("3.5", "tres punto cinco"),
            ("el 50 %", "el cincuenta por ciento"),
            ("el 1.º de mayo", "el primero de mayo"),
            ("la 2.ª vez", "la segunda vez"),
            ("el 1er día", "el primer día"),
            ("a las 10:30", "a las diez y media"),
            ("a las 10:30 de la mañana", "a las 10.30 de la mañana"),
            ("a las 10:30", "a las 1030"),
            ("1030 personas", "mil treinta personas"),
            ("a las 7 p. m.", "a las siete de la tarde"),
            ("a las 9:00", "a las nueve en punto"),
            ("el 1 de mayo", "el primero de mayo"),
            ("Sr. García y Sra. López", "señor García y señora López"),
            ("Está aquí", "esta aqui"),
        ],
    );
    differ(
        "es",
        &[
            ("Cuesta 40 €.", "Cuesta 14 €.", 1),
            ("Ganó el 25 % de los votos.", "Ganó L25% de los votos.", 1),
            ("en 1951", "en 1961", 1),
            ("la 2.ª vez", "la tercera vez", 1),
            ("tres coma cinco", "3,6", 1),
        ],
    );
}

#[test]
fn french_figures_agree_with_their_words() {
    agree(
        "fr",
        &[
            ("Ça coûte 40 €.", "Ça coûte quarante euros."),
            ("3,50 €", "trois euros cinquante"),
            ("En 1951", "En mille neuf cent cinquante et un"),
            ("En 1951", "En dix-neuf cent cinquante et un"),
            ("1 500 habitants", "mille cinq cents habitants"),
            ("80 ans", "quatre-vingts ans"),
            ("71", "soixante-et-onze"),
            ("99", "quatre-vingt-dix-neuf"),
            ("200", "deux cents"),
            ("3,5", "trois virgule cinq"),
            ("50 %", "cinquante pour cent"),
            ("le 1er mai", "le premier mai"),
            ("la 1re fois", "la première fois"),
            ("le 21e siècle", "le vingt et unième siècle"),
            ("le 5e étage", "le cinquième étage"),
            ("le 2nd", "le second"),
            ("à 10h30", "à dix heures trente"),
            ("à 10 h 30", "à dix heures et demie"),
            ("à 1 h", "à une heure"),
            ("le 1 mai", "le premier mai"),
            ("M. Dupont et Mme Martin", "Monsieur Dupont et Madame Martin"),
            ("Où est-il ?", "Ou est il"),
        ],
    );
    differ("fr", &[("Ça coûte 40 €.", "Ça coûte 44 €.", 1), ("le 5e étage", "le sixième étage", 1), ("à 10h30", "à onze heures trente", 1)]);
}

#[test]
fn italian_figures_agree_with_their_words() {
    agree(
        "it",
        &[
            ("Costa 40 €.", "Costa quaranta euro."),
            ("Nel 1951", "Nel millenovecentocinquantuno"),
            ("1.250 persone", "milleduecentocinquanta persone"),
            ("21 anni", "ventuno anni"),
            ("28", "ventotto"),
            ("23", "ventitré"),
            ("180", "centottanta"),
            ("2.000", "duemila"),
            ("3.000.000", "tre milioni"),
            ("3,5", "tre virgola cinque"),
            ("il 23%", "il ventitré per cento"),
            ("il 1º maggio", "il primo maggio"),
            ("la 3ª volta", "la terza volta"),
            ("il 21º secolo", "il ventunesimo secolo"),
            ("alle 10:30", "alle dieci e mezza"),
            ("alle 10:15", "alle dieci e un quarto"),
            ("Sig. Rossi", "signor Rossi"),
            ("Dott.ssa Bianchi", "dottoressa Bianchi"),
            ("È qui", "e qui"),
        ],
    );
    differ("it", &[("Costa 40 €.", "Costa 50 €.", 1), ("il 1º maggio", "il secondo maggio", 1)]);
}

#[test]
fn portuguese_figures_agree_with_their_words() {
    agree(
        "pt-BR",
        &[
            ("Custa R$ 40.", "Custa quarenta reais."),
            ("R$ 3,50", "três reais e cinquenta centavos"),
            ("R$ 1 milhão", "um milhão de reais"),
            ("Em 1951", "Em mil novecentos e cinquenta e um"),
            ("1.500 pessoas", "mil e quinhentas pessoas"),
            ("2 horas", "duas horas"),
            ("21", "vinte e um"),
            ("100", "cem"),
            ("101", "cento e um"),
            ("3,5", "três vírgula cinco"),
            ("50%", "cinquenta por cento"),
            ("o 1º lugar", "o primeiro lugar"),
            ("a 2ª vez", "a segunda vez"),
            ("às 10h30", "às dez e meia"),
            ("às 10h", "às dez horas"),
            ("às 14:15", "às catorze e quinze"),
            ("Sr. Silva e Dra. Souza", "senhor Silva e doutora Souza"),
            ("você está", "voce esta"),
        ],
    );
    differ("pt-BR", &[("Custa R$ 40.", "Custa R$ 30.", 1), ("às 10h30", "às onze e meia", 1)]);
}

#[test]
fn hindi_figures_agree_with_their_words_in_either_script() {
    agree(
        "hi",
        &[
            ("इसकी कीमत ₹40 है", "इसकी कीमत चालीस रुपये है"),
            ("इसकी कीमत 40 रुपए है", "इसकी कीमत चालीस रुपये है"),
            ("१९५१ में", "1951 में"),
            ("1951 में", "उन्नीस सौ इक्यावन में"),
            ("2024 में", "दो हज़ार चौबीस में"),
            ("1,00,000 लोग", "एक लाख लोग"),
            ("25 लाख", "पच्चीस लाख"),
            ("५ किताबें", "पांच किताबें"),
            ("6", "छः"),
            ("3.5", "तीन दशमलव पाँच"),
            ("50%", "पचास प्रतिशत"),
            ("10:30 बजे", "साढ़े दस बजे"),
            ("डॉ. शर्मा", "डॉक्टर शर्मा"),
            ("हज़ार", "हजार"),
        ],
    );
    differ("hi", &[("इसकी कीमत ₹40 है", "इसकी कीमत 45 रुपये है", 1), ("1951 में", "1952 में", 1)]);
}

#[test]
fn a_language_not_read_here_keeps_its_words_and_joins_digit_groups() {
    assert_eq!(first_words(&spoken("Das kostet 1.000 Euro, OK?", "de")), vec!["das", "kostet", "1000", "euro", "ok"]);
    assert_eq!(first_words(&spoken("It's 40 pounds", "")), vec!["it", "is", "40", "pounds"]);
    assert_eq!(first_words(&spoken("40", "de")), vec!["40"], "no German reading: a figure is its digits");
}

#[test]
fn numbers_are_parsed_as_each_language_groups_them() {
    let parse = |raw: &str, comma: bool| Number::parse(raw, comma, false);
    assert_eq!((parse("1,000", false).whole.as_str(), parse("1,000", false).fraction), ("1000", None));
    assert_eq!(parse("3,5", true).fraction.as_deref(), Some("5"));
    assert_eq!(parse("1.500", true).whole, "1500");
    assert_eq!((parse("3.5", true).whole.as_str(), parse("3.5", true).mark), ("3", '.'));
    assert_eq!(parse("1.234,56", true).fraction.as_deref(), Some("56"));
    assert_eq!(Number::parse("1,00,000", false, true).whole, "100000");
    assert!(parse("1,5,7", false).fraction.is_none(), "no well-formed reading: the digits alone");
}

#[test]
#[allow(clippy::inconsistent_digit_grouping)] // Hindi's figures grouped in lakhs, as it writes them
fn cardinals_read_as_written_in_each_language() {
    let read = |k: usize, n: u64| READERS[k].cardinal(n);
    assert_eq!(read(0, 1_234_567), "one million two hundred thirty-four thousand five hundred sixty-seven");
    assert_eq!(read(2, 21_000), "veintiuno mil");
    assert_eq!(read(2, 1_000_000), "un millón");
    assert_eq!(read(3, 81), "quatre-vingt-un");
    assert_eq!(read(3, 2_080), "deux mille quatre-vingts");
    assert_eq!(read(4, 21_000), "ventunmila");
    assert_eq!(read(4, 1_001_000), "un milione mille");
    assert_eq!(read(5, 1_234), "mil duzentos e trinta e quatro");
    assert_eq!(read(6, 12_34_567), "बारह लाख चौंतीस हज़ार पाँच सौ सड़सठ");
    assert_eq!(read(6, 3_00_00_000), "तीन करोड़");
}
