-- The seed a segment renders with. NULL means the segment's id, the seed
-- every segment had before takes could be chosen; "another take" stores a
-- fresh one, and picking an earlier take stores that take's seed, so the
-- line keeps the delivery the user chose across later edits.
ALTER TABLE segments ADD COLUMN seed INTEGER;
